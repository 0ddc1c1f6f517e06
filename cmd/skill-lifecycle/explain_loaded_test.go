package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

func TestExplainLoaded(t *testing.T) {
	ss := []skills.Skill{
		{Name: "route-task", Description: "Route a request to the right skill.", Dir: "/p/route-task", Role: skills.RoleEntry,
			Body: "Load `plot-figure` for figures and `deploy-service` for releases."},
		{Name: "plot-figure", Description: "Plot a figure or chart from tabular data.", Dir: "/p/plot-figure"},
		{Name: "deploy-service", Description: "Deploy the service to production and tag a release.", Dir: "/p/deploy-service"},
		{Name: "write-docs", Description: "Write user documentation pages.", Dir: "/p/write-docs"},
	}
	cfg := rules.Default()
	cfg.MinKeep = 0
	cfg.TopK = 1
	var list []host.HostSkill
	for _, s := range ss {
		list = append(list, host.HostSkill{Name: s.Name, Description: s.Description, Path: s.Dir + "/SKILL.md"})
	}
	rep := explainLoaded(host.NewWorld(list, ss, cfg, nil), splitLoaded(" route-task, write-docs,,deploy-service ,ghost"), "plot a chart of the monthly sales figures")
	type row struct {
		Skill     string
		Keep      bool
		Code      rules.Code
		Installed bool
	}
	var got []row
	for _, d := range rep.Decisions {
		got = append(got, row{d.Skill, d.Keep, d.Code, d.Installed})
	}
	want := []row{
		{"route-task", true, rules.KeepEntry, true},
		{"write-docs", false, rules.ArchiveNotRelevant, true},
		{"deploy-service", false, rules.ArchiveNotRelevant, true},
		{"ghost", false, rules.ArchiveNotRelevant, false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("decisions (-want +got):\n%s", d)
	}
	var buf bytes.Buffer
	if err := writeLoaded(&buf, rep, true); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Decisions []struct {
			Skill  string `json:"skill"`
			Keep   *bool  `json:"keep"`
			Reason string `json:"reason"`
		} `json:"decisions"`
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Decisions) != 4 || back.Decisions[0].Keep == nil || back.Decisions[1].Reason == "" {
		t.Errorf("JSON output lacks decisions {skill, keep, reason}: %s (%v)", buf.String(), err)
	}
	buf.Reset()
	if err := writeLoaded(&buf, rep, false); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"entry skill: route-task (declared)", "keep     route-task", "archive  ghost (not installed)"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("text output lacks %q:\n%s", s, buf.String())
		}
	}
}
