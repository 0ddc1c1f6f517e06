package main

import (
	"path/filepath"

	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Shared between commands: how a catalog becomes a relevance index and how
// its entry skills are inferred.

func init() {
	// list shows inferred roles through this seam.
	inferRoles = inferCatalogRoles
}

// docOf is what the relevance index reads of a skill: name, description
// and the body's headings with their levels.
func docOf(s *skills.Skill) relevance.Doc {
	d := relevance.Doc{Name: s.Name, Description: s.Description}
	if len(s.Headings) > 0 {
		d.Headings = make([]string, len(s.Headings))
		d.Levels = make([]int, len(s.Headings))
		for i, h := range s.Headings {
			d.Headings[i], d.Levels[i] = h.Text, h.Level
		}
	}
	return d
}

// indexCatalog builds the relevance index of the skills with p.
func indexCatalog(ss []*skills.Skill, p relevance.Params) *relevance.Index {
	docs := make([]relevance.Doc, len(ss))
	for i, s := range ss {
		docs[i] = docOf(s)
	}
	return relevance.NewIndex(docs, p)
}

// skillValues copies the catalog's skills into a slice of values, the form
// the lifecycle package takes.
func skillValues(ss []*skills.Skill) []skills.Skill {
	out := make([]skills.Skill, len(ss))
	for i, s := range ss {
		out[i] = *s
	}
	return out
}

// folderOf is the folder a skill belongs to for entry inference: the
// folder holding the skill's own folder (the skills root it was found
// in, for a nested pack the pack's folder).
func folderOf(s *skills.Skill) string { return filepath.Dir(s.Dir) }

// catalogEntries returns, for each folder of skills, its entry skill: the
// first skill declaring metadata.role: entry, else the one inferred from
// cross-references (relevance.ChooseEntry), folders in catalog order.
func catalogEntries(ss []*skills.Skill) (folders []string, entries map[string]relevance.Entry) {
	bodies := make([]relevance.Body, len(ss))
	members := map[string][]string{}
	declared := map[string][]string{}
	for i, s := range ss {
		bodies[i] = relevance.Body{Name: s.Name, Text: s.Body}
		f := folderOf(s)
		if _, ok := members[f]; !ok {
			folders = append(folders, f)
		}
		members[f] = append(members[f], s.Name)
		if s.Role == skills.RoleEntry {
			declared[f] = append(declared[f], s.Name)
		}
	}
	refs := relevance.CrossRefs(bodies)
	entries = make(map[string]relevance.Entry, len(folders))
	for _, f := range folders {
		entries[f] = relevance.ChooseEntry(members[f], refs, declared[f], true)
	}
	return folders, entries
}

// inferCatalogRoles returns the entry role of the skills inferred as their
// folder's entry (declared roles are list's own business).
func inferCatalogRoles(c *skills.Catalog) map[string]skills.Role {
	_, entries := catalogEntries(c.Skills)
	out := map[string]skills.Role{}
	for _, e := range entries {
		if e.Source == relevance.EntryInferred {
			out[e.Skill] = skills.RoleEntry
		}
	}
	return out
}
