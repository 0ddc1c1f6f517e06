package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// genSkills are the skill names of generated sessions.
var genSkills = []string{"triage-task", "explore-data", "build-pipeline", "evaluate-model", "plot-figure", "write-report"}

// writeCorpus writes deterministic version-3 sessions shaped like the
// scenario sessions (user turns with think time, skill reads, bash, file
// writes, tool results of a few kilobytes, recorded usage) until total
// bytes are written. It returns the files.
func writeCorpus(dir string, total int64, sessionBytes int) ([]string, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	var files []string
	var written int64
	words := strings.Fields("the model data pipeline feature target error month table column split train test metric score value row plot figure report skill load read write bash python result check fix smoke")
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(12) == 0 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	bodies := map[string]string{}
	for _, s := range genSkills {
		bodies[s] = "---\nname: " + s + "\ndescription: generated\n---\n\n# " + s + "\n\n" + text(6000)
	}
	for n := 0; written < total; n++ {
		path := filepath.Join(dir, fmt.Sprintf("s%04d.jsonl", n))
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		size := 0
		emit := func(v any) {
			b, _ := json.Marshal(v)
			w.Write(b)
			w.WriteByte('\n')
			size += len(b) + 1
		}
		t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Hour)
		cwd := fmt.Sprintf("/work/p%d", n)
		emit(map[string]any{"type": "session", "version": 3, "id": fmt.Sprintf("gen-%d", n), "timestamp": t.Format(time.RFC3339Nano), "cwd": cwd})
		id, parent := 0, any(nil)
		entry := func(m map[string]any) {
			id++
			m["id"] = fmt.Sprintf("%08x", id)
			m["parentId"] = parent
			m["timestamp"] = t.Format(time.RFC3339Nano)
			parent = m["id"]
			emit(m)
		}
		entry(map[string]any{"type": "model_change", "provider": "fake", "modelId": "scripted"})
		prompt, cached := 7000, 0
		call := 0
		for size < sessionBytes {
			t = t.Add(time.Duration(30+rng.IntN(600)) * time.Second)
			entry(map[string]any{"type": "message", "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "text", "text": text(60 + rng.IntN(200))}}, "timestamp": t.UnixMilli()}})
			steps := 3 + rng.IntN(8)
			for s := 0; s < steps; s++ {
				t = t.Add(time.Duration(500+rng.IntN(2500)) * time.Millisecond)
				call++
				cid := fmt.Sprintf("call_%d", call)
				var tool string
				var args map[string]any
				var result string
				switch k := rng.IntN(10); {
				case k < 3:
					sk := genSkills[rng.IntN(len(genSkills))]
					tool, args, result = "read", map[string]any{"path": cwd + "/.agents/skills/" + sk + "/SKILL.md"}, bodies[sk]
				case k < 4:
					sk := genSkills[rng.IntN(len(genSkills))]
					tool, args, result = "read", map[string]any{"path": cwd + "/.agents/skills/" + sk + "/references/more.md"}, text(1500)
				case k < 7:
					tool, args, result = "bash", map[string]any{"command": "python3 run.py --step " + fmt.Sprint(s)}, text(500+rng.IntN(4000))
				default:
					tool, args, result = "write", map[string]any{"path": cwd + "/src/f.py", "content": text(800)}, "Successfully wrote file"
				}
				out := 20 + rng.IntN(60)
				entry(map[string]any{"type": "message", "message": map[string]any{"role": "assistant",
					"content": []any{map[string]any{"type": "text", "text": text(80)}, map[string]any{"type": "toolCall", "id": cid, "name": tool, "arguments": args}},
					"api":     "openai-completions", "provider": "fake", "model": "scripted",
					"usage": map[string]any{"input": prompt - cached, "output": out, "cacheRead": cached, "cacheWrite": 0, "totalTokens": prompt + out,
						"cost": map[string]any{"input": float64(prompt-cached) * 3e-6, "output": float64(out) * 15e-6, "cacheRead": float64(cached) * 0.3e-6, "cacheWrite": 0, "total": 0}},
					"stopReason": "toolUse", "timestamp": t.UnixMilli()}})
				cached = prompt
				prompt += (len(result) + 200) / 4
				entry(map[string]any{"type": "message", "message": map[string]any{"role": "toolResult", "toolCallId": cid, "toolName": tool,
					"content": []any{map[string]any{"type": "text", "text": result}}, "isError": false, "timestamp": t.UnixMilli()}})
			}
			entry(map[string]any{"type": "message", "message": map[string]any{"role": "assistant",
				"content": []any{map[string]any{"type": "text", "text": text(300)}}, "api": "openai-completions", "provider": "fake", "model": "scripted",
				"usage": map[string]any{"input": prompt - cached, "output": 80, "cacheRead": cached, "cacheWrite": 0, "totalTokens": prompt + 80,
					"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
				"stopReason": "stop", "timestamp": t.UnixMilli()}})
			cached = prompt
		}
		if err := w.Flush(); err != nil {
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		written += int64(size)
		files = append(files, path)
	}
	return files, nil
}
