package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
	"github.com/skill-lifecycle/skill-lifecycle/replay"
	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

func init() {
	register(command{name: "replay", summary: "re-cost recorded Pi sessions under prefix-cache pricing, per strategy", run: runReplay})
}

// replayList collects a repeated flag.
type replayList []string

func (m *replayList) String() string     { return strings.Join(*m, ",") }
func (m *replayList) Set(v string) error { *m = append(*m, v); return nil }
func (m *replayList) repeatable()        {}

// progressThreshold is the input size from which a progress line is shown
// (when stderr is a terminal).
const progressThreshold = 20 << 20

func runReplay(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("replay", "replay", "FILES-or-DIRS...", `
Folders are searched for .jsonl files; of those, files whose first JSON line
is not a session header (request logs) are skipped. Every file skipped is
named on stderr with the reason, and counted.`)
	fl.after = `
Exit status: 0 when every file named or found was replayed (or skipped as not
a session, in a folder); 1 when some input could not be read (an I/O error, a
folder that cannot be read, a file that is not a regular file) or a file named
is not a session, the others being replayed; 2 on a usage mistake (a bad flag
or flag value, a configuration or prices file that does not parse, a path
that does not exist, no .jsonl file at all); 3 when nothing could be replayed.`
	var configs, orphanDirs replayList
	skillsDir := fl.String("skills", "", "skill pack `DIR`: names its skills, so that reads of their SKILL.md count as loads")
	fl.Var(&configs, "config", "strategy `name=file.json` (a skill-lifecycle.json); repeatable")
	fl.Var(&orphanDirs, "orphan-dir", "`DIR` whose <name>/ subfolders hold skill files: a tool call there while that skill is archived is an orphan use; repeatable")
	pricesFile := fl.String("prices", "", "prices `FILE` (JSON; see docs/replay.md); default: the session's recorded cost, else input 3 / output 15 USD per million tokens")
	ttl := fl.Duration("cache-ttl", replay.DefaultTTL, "cache lifetime; 0 = the cache never expires")
	allBranches := fl.Bool("all-branches", false, "replay every leaf of each session, not only the last entry's branch")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	htmlFile := fl.String("html", "", "also write a self-contained HTML report to `FILE`: the settings, charts of the context and the cumulative cost per strategy (archives and reloads marked), a table per session")
	noDefaults := fl.Bool("no-defaults", false, "do not add the 'defaults' strategy")
	recorded := fl.Bool("recorded", false, "add the 'recorded' strategy: the archive decisions the bridge recorded in each session, applied where recorded")
	decisions := fl.Bool("decisions", false, "after the table, list what each engine strategy decided in each session and why, request by request: bodies marked due, kept (once a turn, with the cost of archiving them then), archived (with the timing), and what the cache lifetime taught; in --json, each session's strategies carry them")
	foresight := fl.Bool("foresight", false, "add the 'foresight' strategy: per session, the archive plan replay prices lowest, found knowing the session's future (a yardstick, not a policy; replays each session about loads x (turns + loads) times); 'foresight-timing', the same held to the bodies relevance-only archives and no earlier than it does (what timing alone could gain); and 'foresight-timing-peak', that held to requests at most 10% larger than relevance-only's largest")
	noComebacks := fl.Bool("no-comebacks", false, "switch the comeback model off: the agent loads an archived skill again only where the session shows it using the skill's files; with --all-comebacks, replay brackets the cost of strategies whose archives the agent may come back to")
	allComebacks := fl.Bool("all-comebacks", false, "the agent comes back to every archived skill a prompt asks for, not only to the best ranked that does the work (and the helpers asked for), and to every archived helper: the upper end of replay's band")
	if code, ok := fl.parse(args, stdout, stderr); !ok {
		return code
	}
	if fl.NArg() == 0 {
		return fl.usageError(stderr, "give session files or folders")
	}
	if *ttl < 0 {
		return fl.usageError(stderr, "--cache-ttl %v: want a duration such as 5m or 300s, or 0; not negative", *ttl)
	}

	if *noComebacks && *allComebacks {
		return fl.usageError(stderr, "--no-comebacks and --all-comebacks exclude each other")
	}
	opts := replay.Options{TTL: *ttl, AllBranches: *allBranches, Series: *htmlFile != "", Decisions: *decisions, NoComebacks: *noComebacks, AllComebacks: *allComebacks}
	world := host.OfCatalog(&skills.Catalog{}, rules.Default())
	var packNames []string // the skills of --skills
	if *skillsDir != "" {
		if err := statPath("--skills ", *skillsDir); err != nil {
			fmt.Fprintf(stderr, "replay: %v\n", err)
			return exitUsage
		}
		if st, err := os.Stat(*skillsDir); err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "replay: --skills %s: not a folder\n", skills.TerminalText(*skillsDir))
			return exitUsage
		}
		abs, _ := filepath.Abs(*skillsDir)
		sc := skills.Discover(skills.Options{Paths: []string{abs}, NoDefaults: true})
		for _, d := range sc.Diagnostics {
			if d.Severity == skills.Error {
				fmt.Fprintf(stderr, "replay: %s: %s\n", skills.TerminalText(d.Path), skills.TerminalText(d.Message))
			}
		}
		world, opts.Pack = host.OfCatalog(sc, rules.Default()), replay.PackOf(sc, orphanDirs)
		for _, sk := range sc.Skills {
			packNames = append(packNames, sk.Name)
		}
	} else if len(orphanDirs) > 0 {
		opts.Pack = &replay.Pack{Dirs: orphanDirs}
	}
	if *pricesFile != "" {
		data, err := readRegular(*pricesFile)
		if err != nil {
			fmt.Fprintf(stderr, "replay: --prices %s\n", pathError(*pricesFile, err))
			return exitUsage
		}
		t, err := pricing.ParseTable(data)
		if err != nil {
			fmt.Fprintf(stderr, "replay: %s: %v\n", *pricesFile, err)
			return 2
		}
		opts.Prices = t
	}
	if !*noDefaults {
		opts.Strategies = append(opts.Strategies, replay.EngineSpec("defaults", world))
	}
	if *recorded {
		opts.Strategies = append(opts.Strategies, replay.RecordedSpec())
	}
	if *foresight {
		opts.Strategies = append(opts.Strategies, replay.ForesightSpec(world), replay.ForesightTimingSpec(world), replay.ForesightPeakSpec(world))
	}
	names := map[string]bool{replay.KeepAllName: true, "defaults": !*noDefaults, replay.RecordedName: *recorded, replay.ForesightName: *foresight, replay.ForesightTimingName: *foresight, replay.ForesightPeakName: *foresight}
	for _, c := range configs {
		name, file, ok := strings.Cut(c, "=")
		if !ok || name == "" || file == "" {
			fmt.Fprintf(stderr, "replay: --config %q: want name=file.json\n", c)
			return 2
		}
		if names[name] {
			fmt.Fprintf(stderr, "replay: --config: strategy name %q used twice\n", name)
			return 2
		}
		names[name] = true
		cfg, warns, err := host.ReadConfigFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "replay: --config %s: %s\n", name, pathError(file, err))
			return 2
		}
		for _, w := range warns {
			fmt.Fprintf(stderr, "replay: warning: %s\n", w)
		}
		opts.Strategies = append(opts.Strategies, replay.EngineSpec(name, world.WithConfig(cfg)))
	}

	files, skipped, total, err := sessionFiles(fl.Args())
	if err != nil {
		fmt.Fprintf(stderr, "replay: %v\n", err)
		return 2
	}
	if len(files) == 0 && len(skipped) == 0 {
		fmt.Fprintln(stderr, "replay: no .jsonl session files found")
		return 2
	}
	progress := total >= progressThreshold && isTerminal(stderr)
	r := replay.NewRunner(opts)
	start := time.Now()
	var done int64
	// failed counts the inputs that could not be read (I/O errors,
	// unreadable folders, files that are not regular files) and the files
	// named that are not sessions; a .jsonl file found in a folder that is
	// not a session (a request log) is skipped without being an error.
	failed := 0
	for _, sk := range skipped {
		r.Skip(sk.File, sk.Reason)
		failed++
	}
	sizes := map[string]int64{}
	inputs := make([]replay.Input, len(files))
	for i, f := range files {
		inputs[i] = replay.Input{Path: f.path, Found: f.found}
		sizes[f.path] = f.size
	}
	// Sessions are small and short-lived; collecting less often saves CPU
	// while memory stays bounded by two sessions.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	r.AddFiles(inputs, func(in replay.Input, o replay.Outcome) {
		if o.Err != nil || (o.Skipped != "" && !in.Found) {
			failed++
		}
		if o.Skipped == "" {
			r.AddBytes(sizes[in.Path])
		}
		done += sizes[in.Path]
		if progress {
			el := time.Since(start).Seconds()
			fmt.Fprintf(unwrapWriter(stderr), "\rreplay: %d/%d MB, %.0f MB/s   ", done>>20, total>>20, float64(done)/1e6/max(el, 1e-9))
		}
	})
	if progress {
		fmt.Fprintln(stderr)
	}
	rep := r.Report()
	for _, d := range rep.Diagnostics {
		fmt.Fprintf(stderr, "replay: %s\n", skills.TerminalText(d.String()))
	}
	for _, o := range rep.DiagnosticsOmitted {
		fmt.Fprintf(stderr, "replay: %s: %d more diagnostics not shown (%d in all)\n", o.File, o.Omitted, o.Total)
	}
	for _, sk := range rep.Skipped {
		fmt.Fprintf(stderr, "replay: skipped %s: %s\n", sk.File, sk.Reason)
	}
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(stderr, "replay: %d %s replayed, %d skipped\n", rep.Files, plural(rep.Files, "file", "files"), len(rep.Skipped))
	}
	if rep.Files > 0 {
		packWarning(stderr, *skillsDir, packNames, rep.SkillsLoaded)
	}
	if rep.Files == 0 {
		fmt.Fprintln(stderr, "replay: nothing could be replayed")
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(rep)
		}
		return 3
	}
	if *htmlFile != "" {
		about := replay.HTMLAbout{Version: currentVersion().String(), Args: append([]string{"replay"}, args...), Pack: *skillsDir, PackSkills: len(packNames)}
		if err := os.WriteFile(*htmlFile, []byte(replay.HTML(rep, about)), 0o644); err != nil {
			fmt.Fprintf(stderr, "replay: %v\n", err)
			return 1
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "replay: %v\n", err)
			return 1
		}
	} else {
		replay.WriteTable(stdout, rep)
		if *decisions {
			replay.WriteDecisions(stdout, rep)
		}
	}
	if failed > 0 {
		return 1
	}
	return 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

type sessionFile struct {
	path  string
	size  int64
	found bool // found in a folder, not named
}

// sessionFiles expands arguments: files as given, folders walked for
// .jsonl files (sorted). A path argument that does not exist is an error;
// what cannot be used below it (a folder that cannot be read, a .jsonl
// entry that is not a regular file or a link to one) is returned as
// skipped, with the reason, and the walk goes on. Nothing is opened here:
// whether a file found is a session is the reader's call
// (replay.Input.Found).
func sessionFiles(args []string) ([]sessionFile, []replay.Skipped, int64, error) {
	var out []sessionFile
	var skipped []replay.Skipped
	var total int64
	for _, a := range args {
		if err := statPath("", a); err != nil {
			return nil, nil, 0, err
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, nil, 0, err
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				skipped = append(skipped, replay.Skipped{File: a, Reason: "not a regular file (" + kindOf(st.Mode()) + ")"})
				continue
			}
			out = append(out, sessionFile{a, st.Size(), false})
			total += st.Size()
			continue
		}
		var found []sessionFile
		_ = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				// A folder (or entry) that cannot be read: named, and the
				// walk goes on.
				skipped = append(skipped, replay.Skipped{File: p, Reason: err.Error()})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return nil
			}
			info, err := d.Info() // of the entry itself (Lstat)
			if err == nil && info.Mode()&fs.ModeSymlink != 0 {
				// A link is followed to a regular file only (a link to a
				// folder is not walked, as WalkDir does not).
				info, err = os.Stat(p)
			}
			if err != nil {
				skipped = append(skipped, replay.Skipped{File: p, Reason: err.Error()})
				return nil
			}
			if !info.Mode().IsRegular() {
				skipped = append(skipped, replay.Skipped{File: p, Reason: "not a regular file (" + kindOf(info.Mode()) + ")"})
				return nil
			}
			found = append(found, sessionFile{p, info.Size(), true})
			return nil
		})
		sort.Slice(found, func(i, j int) bool { return found[i].path < found[j].path })
		for _, f := range found {
			total += f.size
		}
		out = append(out, found...)
	}
	return out, skipped, total, nil
}

// kindOf names a file mode that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a link"
	}
	return "irregular"
}

// readRegular reads a whole file named on the command line, refusing
// anything but a regular file (a named pipe would block).
func readRegular(path string) ([]byte, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := unwrapWriter(w).(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// packWarning says on stderr when the skill pack leaves the engine blind:
// no --skills, a folder with no skill, or a pack that names none (or not
// all) of the skills the sessions load. The engine archives only the
// bodies of skills it knows, so without this a replay reports no saving
// without saying why. dir is --skills ("" when not given), pack its
// skills' names, loaded what the sessions load (Report.SkillsLoaded).
// The first line says what is wrong, indented lines what to pass.
func packWarning(w io.Writer, dir string, pack []string, loaded []replay.LoadedSkill) {
	var in, out, folders []string
	for _, l := range loaded {
		if l.InPack {
			in = append(in, l.Name)
			continue
		}
		out = append(out, l.Name)
		for _, f := range l.Folders {
			if !slices.Contains(folders, f) {
				folders = append(folders, f)
			}
		}
	}
	dirText := skills.TerminalText(dir)
	switch {
	case len(loaded) == 0:
		fmt.Fprintln(w, "replay: warning: the sessions load no skill (no full read of a SKILL.md, no skill tool call, no /skill: command): no strategy has a body to archive")
		return
	case dir == "":
		fmt.Fprintln(w, "replay: warning: no skill pack given (--skills DIR), so no strategy archives a body")
	case len(pack) == 0:
		fmt.Fprintf(w, "replay: warning: --skills %s holds no skill (no <name>/SKILL.md below it), so no strategy archives a body\n", dirText)
	case len(in) == 0:
		fmt.Fprintf(w, "replay: warning: --skills %s names none of the skills the sessions load, so no strategy archives a body\n", dirText)
		fmt.Fprintf(w, "  it holds %d: %s\n", len(pack), nameList(pack, 5))
	case len(out) > 0:
		fmt.Fprintf(w, "replay: warning: --skills %s lacks %d of the %d skills the sessions load: their bodies are never archived\n", dirText, len(out), len(loaded))
	default:
		return
	}
	fmt.Fprintf(w, "  the sessions load %d %s the engine does not know: %s\n", len(out), plural(len(out), "skill", "skills"), nameList(out, 5))
	// A folder the sessions read their skills from that is still here is
	// the pack to pass.
	for _, f := range folders {
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			fmt.Fprintf(w, "  pass --skills %s (the sessions read them from there)\n", skills.TerminalText(f))
			return
		}
	}
	if len(folders) > 0 {
		fmt.Fprintf(w, "  pass the folder that holds them with --skills; the sessions read them from %s\n", nameList(folders, 1))
		return
	}
	fmt.Fprintln(w, "  pass the folder that holds them with --skills")
}

// nameList joins names (as terminal text), the first max of them, with a
// count of the rest.
func nameList(names []string, max int) string {
	shown := names
	if len(shown) > max {
		shown = shown[:max]
	}
	parts := make([]string, len(shown))
	for i, n := range shown {
		parts[i] = skills.TerminalText(n)
	}
	s := strings.Join(parts, ", ")
	if len(names) > max {
		s += fmt.Sprintf(" and %d more", len(names)-max)
	}
	return s
}
