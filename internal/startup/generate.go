package startup

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Marker is the line a child prints once every module is loaded (or, in
// the cpu scenario, once it stops spinning). The parent reads the time
// when it reads this line from the child's standard output.
const Marker = "OBJBENCH_LOADED"

// crashCode is the exit status of a child generated with Options.crash.
const crashCode = 3

// entry is the script the runtime executes in a generated folder.
func entry(runtime string) string {
	if runtime == "node" {
		return "index.js"
	}
	return "main.py"
}

// moduleBody is the source of module i: one object (a dict in Python) with
// up to props random properties, the same for the same seed and index.
func moduleBody(runtime string, seed int64, i, props int) string {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
	n := 0
	if props > 0 {
		n = 1 + rng.IntN(props)
	}
	var b strings.Builder
	if runtime == "node" {
		b.WriteString("module.exports = {")
	} else {
		b.WriteString("data = {")
	}
	for p := range n {
		if p > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: ", "p"+strconv.Itoa(p))
		if rng.IntN(2) == 0 {
			b.WriteString(strconv.FormatFloat(rng.Float64()*1e6, 'f', 3, 64))
		} else {
			b.WriteString(strconv.Quote(randomString(rng, 8+rng.IntN(24))))
		}
	}
	if runtime == "node" {
		b.WriteString("};\n")
	} else {
		b.WriteString("}\n")
	}
	return b.String()
}

func randomString(rng *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// crashTail makes an entry script fail after loading, for tests.
func crashTail(runtime string) string {
	if runtime == "node" {
		return fmt.Sprintf("process.stderr.write('objbench test crash\\n');\nprocess.exit(%d);\n", crashCode)
	}
	return fmt.Sprintf("sys.stderr.write('objbench test crash\\n')\nsys.exit(%d)\n", crashCode)
}

// generateModules writes o.Modules modules and the entry script that
// loads them all into dir, which must exist.
func generateModules(dir string, o Options) error {
	for i := range o.Modules {
		name := fmt.Sprintf("mod_%d.js", i)
		if o.Runtime != "node" {
			name = fmt.Sprintf("mod_%d.py", i)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(moduleBody(o.Runtime, o.Seed, i, o.Props)), 0o644); err != nil {
			return fmt.Errorf("generate modules: %w", err)
		}
	}
	var b strings.Builder
	if o.Runtime == "node" {
		// One index.js that requires every module and
		// exports them as a single giant object.
		b.WriteString("'use strict';\nmodule.exports = {\n")
		for i := range o.Modules {
			fmt.Fprintf(&b, "  mod_%d: require('./mod_%d.js'),\n", i, i)
		}
		b.WriteString("};\n")
		b.WriteString("process.stdout.write('" + Marker + "\\n');\n")
	} else {
		b.WriteString("import os\nimport sys\n\n")
		b.WriteString("sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n\n")
		for i := range o.Modules {
			fmt.Fprintf(&b, "import mod_%d\n", i)
		}
		b.WriteString("\nmodules = {\n")
		for i := range o.Modules {
			fmt.Fprintf(&b, "    \"mod_%d\": mod_%d.data,\n", i, i)
		}
		b.WriteString("}\n")
		b.WriteString("print(\"" + Marker + "\", flush=True)\n")
	}
	if o.crash {
		b.WriteString(crashTail(o.Runtime))
	}
	if err := os.WriteFile(filepath.Join(dir, entry(o.Runtime)), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("generate modules: %w", err)
	}
	return nil
}

// generateCPU writes the control group's entry script into dir: it spins,
// checking a monotonic clock, for o.CPUTime, then prints the marker.
func generateCPU(dir string, o Options) error {
	ns := o.CPUTime.Nanoseconds()
	var s string
	if o.Runtime == "node" {
		s = fmt.Sprintf("'use strict';\nconst end = process.hrtime.bigint() + %dn;\nlet spins = 0;\n"+
			"while (process.hrtime.bigint() < end) { spins++; }\nprocess.stdout.write('%s\\n');\n", ns, Marker)
	} else {
		s = fmt.Sprintf("import sys\nimport time\n\nend = time.perf_counter_ns() + %d\nspins = 0\n"+
			"while time.perf_counter_ns() < end:\n    spins += 1\nprint(\"%s\", flush=True)\n", ns, Marker)
	}
	if o.crash {
		s += crashTail(o.Runtime)
	}
	if err := os.WriteFile(filepath.Join(dir, entry(o.Runtime)), []byte(s), 0o644); err != nil {
		return fmt.Errorf("generate cpu script: %w", err)
	}
	return nil
}
