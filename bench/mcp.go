package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
)

// mcpConn is a running matrixx-mcp, initialized, spoken to line by line.
type mcpConn struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

// startMCP starts matrixx-mcp -C root with the harness's environment and
// completes the MCP handshake (protocol 2025-06-18, as Claude Code).
func (b *bench) startMCP(root string) (*mcpConn, error) {
	cmd := exec.Command(b.exe("matrixx-mcp"), "-C", root)
	cmd.Env = b.r.env
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &mcpConn{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"}}); err != nil {
		c.close()
		return nil, err
	}
	if _, err := fmt.Fprintln(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// request sends one request and returns its response line.
func (c *mcpConn) request(method string, params any) ([]byte, error) {
	c.id++
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := c.in.Write(append(msg, '\n')); err != nil {
		return nil, err
	}
	want := []byte(`"id":` + strconv.Itoa(c.id) + `,`)
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("matrixx-mcp: %v", err)
		}
		if bytes.Contains(line, want) {
			return line, nil
		}
	}
}

func (c *mcpConn) close() {
	c.in.Close()
	c.cmd.Wait()
}

// cpuTicks is the process's user+system time in clock ticks (Linux).
func cpuTicks(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}

// mcp measures an MCP tools/call task_list on a 1,000-task store, on a
// running matrixx-mcp (the request written to the answer read), beside the
// task-list process over the same store (fork+exec to exit), interleaved
// ABBA in one run; and a one-shot matrixx-mcp (start, handshake, one call,
// exit), what a client that starts the server per call would pay.
func (b *bench) mcp() error {
	const n = 1000
	s, err := b.store(n)
	if err != nil {
		return err
	}
	list := &command{Argv: []string{b.exe("task-list"), "-C", s.root}}
	conn, err := b.startMCP(s.root)
	if err != nil {
		return err
	}
	defer conn.close()
	params := map[string]any{"name": "task_list", "arguments": map[string]any{}}
	callOnce := func() (time.Duration, []byte, error) {
		start := time.Now()
		line, err := conn.request("tools/call", params)
		return time.Since(start), line, err
	}
	// One check: the tool answers the document task-list prints.
	x, err := b.r.run(list)
	if err != nil {
		return err
	}
	_, line, err := callOnce()
	if err != nil {
		return err
	}
	var resp struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.Result.IsError || len(resp.Result.Content) != 1 ||
		resp.Result.Content[0].Text != strings.TrimSpace(string(x.Stdout)) {
		return fmt.Errorf("tools/call task_list does not answer what task-list prints: %v %.200s", err, line)
	}
	oneShot := &command{Argv: []string{b.exe("matrixx-mcp"), "-C", s.root}, Stdin: []byte(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task_list","arguments":{}}}` + "\n")}
	for range 3 {
		if _, err := b.r.run(list); err != nil {
			return err
		}
		if _, _, err := callOnce(); err != nil {
			return err
		}
		if _, err := b.r.run(oneShot); err != nil {
			return err
		}
	}
	var procs, shots series
	var calls []time.Duration
	ticks0 := cpuTicks(conn.cmd.Process.Pid)
	for i := range b.runs {
		steps := []func() error{
			func() error { x, err := b.r.run(list); procs.add(x); return err },
			func() error { d, _, err := callOnce(); calls = append(calls, d); return err },
			func() error { x, err := b.r.run(oneShot); shots.add(x); return err },
		}
		if i%2 == 1 {
			slices.Reverse(steps)
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
	}
	serverCPU := time.Duration(cpuTicks(conn.cmd.Process.Pid)-ticks0) * 10 * time.Millisecond / time.Duration(b.runs)
	mcpMed := quantile(calls, 0.5)
	rows := [][]string{
		{"task-list process (fork+exec to exit)", ms(procs.median()), ms(procs.quantile(0)), "1.00×", ms(procs.cpu())},
		{"MCP tools/call task_list, running matrixx-mcp (request to answer)", ms(mcpMed), ms(quantile(calls, 0)),
			fmt.Sprintf("%.2f×", ratio(mcpMed, procs.median())), ms(serverCPU) + " (server, mean)"},
		{"one-shot matrixx-mcp: start, initialize, tools/call task_list, exit", ms(shots.median()), ms(shots.quantile(0)),
			fmt.Sprintf("%.2f×", ratio(shots.median(), procs.median())), ms(shots.cpu())},
	}
	b.table(fmt.Sprintf("MCP: tools/call task_list vs the task-list process, %s tasks", thousands(n)),
		[]string{"what", "median", "min", "ratio to task-list", "CPU median"}, rows)
	return nil
}
