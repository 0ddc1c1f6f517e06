//go:build e2e

// Command faultproxy stands between the Pi bridge and the sidecar for the
// fault-injection tests (tests/e2e/fault_inject_test.go). Given to the
// bridge as SKILL_LIFECYCLE_BIN, it is started as `faultproxy serve`; it
// starts the real `skill-lifecycle serve` (FAULT_SIDECAR) and relays the
// Content-Length frames both ways, unchanged, except the answer to the
// requests its plan names, which it spoils:
//
//	FAULT_PLAN   method:occurrences:fault[,...]; occurrences is n, n-m or *
//	             (counted over every proxy of the test, so across restarts)
//	FAULT_DIR    where the counts and the log of injected faults live
//	FAULT_DELAY  how long "late" holds an answer (a Go duration, default 4s)
//
// Every before_request is noted in FAULT_DIR/trace as "<proxy pid> <from>
// <messages>": which sidecar got it, and the delta it carried.
//
// Faults: "late" sends the answer after FAULT_DELAY, past the bridge's
// timeout; "drop" loses it with the process (the sidecar did the work and
// sent what came before the answer, then the proxy and the sidecar end, as
// in a crash just before answering); "corrupt" sends junk of the same
// length in its place; "hang" never answers and never ends (a binary that
// stops answering). Each injection is logged in FAULT_DIR/injected as
// "method occurrence fault".
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type rule struct {
	method   string
	from, to int // occurrences, 1-based; to 0: no end
	fault    string
}

func parsePlan(s string) ([]rule, error) {
	var out []rule
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		i := strings.LastIndex(part, ":")
		j := strings.LastIndex(part[:max(i, 0)], ":")
		if i < 0 || j < 0 {
			return nil, fmt.Errorf("plan %q: want method:occurrences:fault", part)
		}
		r := rule{method: part[:j], fault: part[i+1:]}
		switch occ := part[j+1 : i]; {
		case occ == "*":
			r.from = 1
		case strings.Contains(occ, "-"):
			a, b, _ := strings.Cut(occ, "-")
			var err1, err2 error
			r.from, err1 = strconv.Atoi(a)
			r.to, err2 = strconv.Atoi(b)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("plan %q: bad occurrences", part)
			}
		default:
			n, err := strconv.Atoi(occ)
			if err != nil {
				return nil, fmt.Errorf("plan %q: bad occurrences", part)
			}
			r.from, r.to = n, n
		}
		switch r.fault {
		case "late", "drop", "corrupt", "hang":
		default:
			return nil, fmt.Errorf("plan %q: unknown fault %q", part, r.fault)
		}
		out = append(out, r)
	}
	return out, nil
}

// count adds one to the occurrences of method, across processes (the
// counts live in dir, under a lock), and returns the new count.
func count(dir, method string) int {
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return 0
	}
	defer lock.Close()
	_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX)
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	f := filepath.Join(dir, "count-"+strings.ReplaceAll(method, "/", "_"))
	b, _ := os.ReadFile(f)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	n++
	_ = os.WriteFile(f, []byte(strconv.Itoa(n)), 0o644)
	return n
}

func logInjected(dir, method string, n int, fault string) {
	f, err := os.OpenFile(filepath.Join(dir, "injected"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %d %s\n", method, n, fault)
}

// readFrame reads one Content-Length frame: its headers as read and its
// body.
// trace notes a before_request's delta: this proxy's pid, from, and the
// number of messages.
func trace(dir string, body []byte) {
	var req struct {
		Params struct {
			From     int               `json:"from"`
			Messages []json.RawMessage `json:"messages"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &req)
	f, err := os.OpenFile(filepath.Join(dir, "trace"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%d %d %d\n", os.Getpid(), req.Params.From, len(req.Params.Messages))
}

func readFrame(r *bufio.Reader) (head, body []byte, err error) {
	length := -1
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, nil, err
		}
		head = append(head, line...)
		t := strings.TrimSpace(string(line))
		if t == "" {
			if length < 0 {
				continue // stray blank line
			}
			break
		}
		if k, v, ok := strings.Cut(t, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	body = make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, nil, err
	}
	return head, body, nil
}

func main() {
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, "usage: faultproxy serve")
		os.Exit(2)
	}
	plan, err := parsePlan(os.Getenv("FAULT_PLAN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "faultproxy:", err)
		os.Exit(2)
	}
	dir := os.Getenv("FAULT_DIR")
	delay := 4 * time.Second
	if d, err := time.ParseDuration(os.Getenv("FAULT_DELAY")); err == nil {
		delay = d
	}
	child := exec.Command(os.Getenv("FAULT_SIDECAR"), os.Args[1:]...)
	child.Stderr = os.Stderr
	in, _ := child.StdinPipe()
	out, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "faultproxy:", err)
		os.Exit(1)
	}
	end := func(code int) {
		_ = child.Process.Kill()
		os.Exit(code)
	}

	var mu sync.Mutex
	spoil := map[string]string{} // request id (as written) -> fault
	var stdout sync.Mutex
	write := func(head, body []byte) {
		stdout.Lock()
		defer stdout.Unlock()
		_, _ = os.Stdout.Write(head)
		_, _ = os.Stdout.Write(body)
	}

	// Host to sidecar: note the requests to spoil, pass everything on.
	go func() {
		r := bufio.NewReader(os.Stdin)
		for {
			head, body, err := readFrame(r)
			if err != nil {
				_ = in.Close()
				return
			}
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method == "before_request" {
				trace(dir, body)
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method != "" && len(msg.ID) > 0 {
				n := count(dir, msg.Method)
				for _, p := range plan {
					if p.method == msg.Method && n >= p.from && (p.to == 0 || n <= p.to) {
						mu.Lock()
						spoil[string(bytes.TrimSpace(msg.ID))] = p.fault
						mu.Unlock()
						logInjected(dir, msg.Method, n, p.fault)
						break
					}
				}
			}
			_, _ = in.Write(head)
			_, _ = in.Write(body)
		}
	}()

	// Sidecar to host: spoil the chosen answers.
	r := bufio.NewReader(out)
	for {
		head, body, err := readFrame(r)
		if err != nil {
			_ = child.Wait()
			os.Exit(0)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		fault := ""
		if json.Unmarshal(body, &msg) == nil && msg.Method == "" && len(msg.ID) > 0 {
			mu.Lock()
			fault = spoil[string(bytes.TrimSpace(msg.ID))]
			mu.Unlock()
		}
		switch fault {
		case "late":
			time.Sleep(delay)
			write(head, body)
		case "drop":
			end(1)
		case "corrupt":
			junk := bytes.Repeat([]byte{'}'}, len(body))
			copy(junk, "\x00\xffnot json")
			write(head, junk)
		case "hang":
			for { // never answers, never ends (until killed)
				time.Sleep(time.Hour)
			}
		default:
			write(head, body)
		}
	}
}
