package host

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadConfigFileRefusesHugeFile: a configuration over MaxConfigSize is
// refused, naming the file, without being parsed (a 100 MiB file used to be
// read and parsed whole: minutes and gigabytes); a normal one still loads.
func TestReadConfigFileRefusesHugeFile(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	data := append([]byte(`{"pinned": [`), bytes.Repeat([]byte(`"a-skill",`), MaxConfigSize/10+1)...)
	data = append(data, []byte(`"a-skill"]}`)...)
	if err := os.WriteFile(huge, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadConfigFile(huge); err == nil || !strings.Contains(err.Error(), huge) || !strings.Contains(err.Error(), "over") {
		t.Errorf("ReadConfigFile(%d bytes) = %v, want a size error naming the file", len(data), err)
	}
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"topK": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, warns, err := ReadConfigFile(small)
	if err != nil || len(warns) != 0 || cfg.TopK != 2 {
		t.Errorf("small file: cfg.TopK %d, warnings %v, error %v", cfg.TopK, warns, err)
	}
}
