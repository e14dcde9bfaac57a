package board

import (
	"bytes"
	"embed"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// assets are the page's files, embedded: the board needs nothing from the
// network and no Node at run time.
//
//go:embed assets
var assets embed.FS

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
}

// static serves one embedded file.
func (s *Server) static(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", contentTypes[filepath.Ext(name)])
		_, _ = w.Write(b)
	}
}

// Export writes a self-contained static page of the board to dir/index.html:
// the styles, the script and the cards (with their descriptions) inline,
// nothing to fetch, read-only. It reads the store once.
func (s *Server) Export(dir string) (string, error) {
	if err := s.Load(); err != nil {
		return "", err
	}
	snap, _ := s.snapshotNow()
	snap.ReadOnly = true
	type exportCard struct {
		*Card
		Description string `json:"description,omitempty"`
	}
	cards := make([]exportCard, len(snap.Cards))
	s.m.mu.Lock()
	for i, c := range snap.Cards {
		cards[i] = exportCard{Card: c, Description: s.m.tasks[c.ID].Description}
	}
	s.m.mu.Unlock()
	data, err := json.Marshal(struct {
		snapshot
		Cards []exportCard `json:"cards"`
	}{snap, cards}, json.Deterministic(true), jsontext.EscapeForHTML(true))
	if err != nil {
		return "", errcode.Wrap(errcode.InternalError, err, "encoding the export")
	}
	page, _ := assets.ReadFile("assets/index.html")
	css, _ := assets.ReadFile("assets/board.css")
	js, _ := assets.ReadFile("assets/board.js")
	icon, _ := assets.ReadFile("assets/favicon.svg")
	out := string(page)
	out = strings.Replace(out, `<link rel="stylesheet" href="board.css">`, "<style>\n"+string(css)+"</style>", 1)
	out = strings.Replace(out, `<link rel="icon" href="favicon.svg" type="image/svg+xml">`, `<link rel="icon" href="data:image/svg+xml,`+strings.ReplaceAll(strings.TrimSpace(string(icon)), "#", "%23")+`">`, 1)
	out = strings.Replace(out, `<script src="board.js"></script>`, `<script id="data" type="application/json">`+string(data)+"</script>\n<script>\n"+string(bytes.ReplaceAll(js, []byte("</script"), []byte(`<\/script`)))+"</script>", 1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", errcode.Wrap(errcode.InternalError, err, "creating %s", dir)
	}
	path := filepath.Join(dir, "index.html")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return "", errcode.Wrap(errcode.InternalError, err, "writing %s", path)
	}
	return path, nil
}
