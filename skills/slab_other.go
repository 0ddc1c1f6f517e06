//go:build !linux

package skills

func adviseHuge([]byte) {}
