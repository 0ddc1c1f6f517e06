// Package conf reads skill-lifecycle's JSON configuration into Go values,
// with one diagnostic type for every problem found: its file, line and key.
//
//	n, err := conf.Parse(data, 1) // a tree that keeps the lines
//	d := conf.Decoder{File: path}
//	d.Decode(n, "", &cfg) // field by field, by their tags
//	for _, x := range d.Diags {
//		fmt.Println(x) // skill-lifecycle.json:3: error: topK: must be a whole number ...
//	}
//
// A struct's fields name and bound its keys (Decoder says how), so a new
// key is a new field. It does no I/O. The packages rules and models read
// their configuration with it; rules.Diagnostic, rules.Severity and
// skills.Severity are aliases of its types.
package conf
