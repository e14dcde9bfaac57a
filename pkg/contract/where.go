package contract

// WhereAnswer is what --where prints (docs/design/decisions.md): what the
// command would use and why, like git rev-parse --show-toplevel and git
// config --show-origin. Shape:
//
//	{"projectRoot":{"path","from"},
//	 "store":{"dir","exists","from","listID"?,"listIDFrom"?},
//	 "openCodeDir":{"path","from"},
//	 "configFiles":[{"path","exists"}],
//	 "settings":{"tasks.<key>":{"value","from"}},
//	 "session":{"id","from"},
//	 "env":{"NAME":"value",…}}
//
// "from" is a flag ("-C", "--session"), an environment variable's name,
// the marker that made the root ("<root>/.git"), a config file and key, or
// "default". The command does nothing else: no stdin is read, nothing is
// written.
type WhereAnswer struct {
	ProjectRoot WhereValue              `json:"projectRoot"`
	Store       WhereStore              `json:"store"`
	OpenCodeDir WhereValue              `json:"openCodeDir"`
	ConfigFiles []WhereFile             `json:"configFiles"`
	Settings    map[string]WhereSetting `json:"settings"`
	Session     WhereSession            `json:"session"`
	Env         map[string]string       `json:"env"`
}

// WhereValue is a path and where it came from.
type WhereValue struct {
	Path string `json:"path"`
	From string `json:"from"`
}

// WhereStore is the task store: its directory, whether it exists, where it
// came from, and the shared list id when there is one.
type WhereStore struct {
	Dir        string `json:"dir"`
	Exists     bool   `json:"exists"`
	From       string `json:"from"`
	ListID     string `json:"listID,omitempty"`
	ListIDFrom string `json:"listIDFrom,omitempty"`
}

// WhereFile is a config file and whether it exists.
type WhereFile struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
}

// WhereSetting is a setting's value and where it came from.
type WhereSetting struct {
	Value any    `json:"value"`
	From  string `json:"from"`
}

// WhereSession is the session id and where it came from.
type WhereSession struct {
	ID   string `json:"id"`
	From string `json:"from"`
}
