//go:build !unix

package regfile

import "os"

// open opens a file Open has found regular and checks it again once open
// (named pipes and devices of this system have no path that blocks here).
func open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: st.Mode().Type()}
	}
	return f, nil
}
