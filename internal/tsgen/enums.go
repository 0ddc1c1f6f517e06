package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// enumValues reads the values of t's constants from the source: those
// declared with type t in t's own package or in a package of the roots
// (reflection does not see constants).
func (g *generator) enumValues(t reflect.Type) ([]string, error) {
	pkgs := []string{t.PkgPath()}
	for _, r := range g.rootTypes() {
		if p := r.PkgPath(); p != "" && !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	var vals []string
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p, g.s.module)
		if !ok {
			continue // outside the module: no source here
		}
		vs, err := constsOfType(filepath.Join(g.s.root, filepath.FromSlash(rel)), t, p == t.PkgPath())
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("enum %s: no constants of the type found", goName(t))
	}
	slices.Sort(vals) // not the order of files and declarations, which may move
	return vals, nil
}

func (g *generator) rootTypes() []reflect.Type {
	var ts []reflect.Type
	add := func(v any) {
		if v != nil {
			ts = append(ts, reflect.TypeOf(v))
		}
	}
	for _, m := range g.s.requests {
		add(m.params)
		add(m.result)
	}
	for _, n := range g.s.hostNotifications {
		add(n.params)
	}
	for _, n := range g.s.serverNotifications {
		add(n.params)
	}
	return ts
}

// constsOfType parses the package in dir (its non-test files) and returns
// the string values of the constants declared with type t; own says the
// package is t's.
func constsOfType(dir string, t reflect.Type, own bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var vals []string
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		local := path.Base(t.PkgPath()) // the package's name where it is imported
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == t.PkgPath() && imp.Name != nil {
				local = imp.Name.Name
			}
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if !isType(vs.Type, t.Name(), local, own) {
					continue
				}
				for i, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return nil, fmt.Errorf("%s: constant %s of type %s is not a string literal", fset.Position(v.Pos()), vs.Names[i].Name, goName(t))
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						return nil, err
					}
					vals = append(vals, s)
				}
			}
		}
	}
	return vals, nil
}

// isType says whether the expression names the type: name in its own
// package, local.name elsewhere.
func isType(e ast.Expr, name, local string, own bool) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return own && e.Name == name
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && !own && x.Name == local && e.Sel.Name == name
	}
	return false
}
