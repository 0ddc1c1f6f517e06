//go:build e2e

package e2e

import "testing"

// benchmarkRun measures one headless `pi -p` run answering one prompt with
// one model request (process start, extension-free startup, request, exit).
func benchmarkRun(b *testing.B, pi PiInstall) {
	prov := NewProvider(b, func(*Request) Reply { return Say("ok") })
	env := NewEnv(b, pi, prov)
	env.AddSkills(b, testSkills...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		env.RunOK(b, RunOpts{Prompts: []string{"hello"}, Approve: pi.TrustGated})
	}
}

func BenchmarkPiRun16(b *testing.B)  { benchmarkRun(b, Pi16(b)) }
func BenchmarkPiRun073(b *testing.B) { benchmarkRun(b, Pi073(b)) }

// BenchmarkPiRun16Bridge is the same run with the bridge and its sidecar.
func BenchmarkPiRun16Bridge(b *testing.B) {
	pi := Pi16(b)
	prov := NewProvider(b, func(*Request) Reply { return Say("ok") })
	env := NewEnv(b, pi, prov)
	env.AddSkills(b, testSkills...)
	env.UseBridge(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		env.RunOK(b, RunOpts{Prompts: []string{"hello"}, Approve: true})
	}
}
