package explain

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// contextFindings are the info findings about the program's context (the
// SDK's headers, its time away from storage), which every program of a
// library gets alike: the corpus checks the others.
var contextFindings = map[string]bool{"explain-checksum-headers": true, "explain-not-storage": true}

// corpusProgram is one program of the library corpus
// (testdata/corpus/{gosdk,python,node}): written the way its library's
// documentation and examples write it, with the findings it must get
// (sorted ids, space-separated; the context ones aside) and no other.
type corpusProgram struct {
	name, lang string
	argv       []string // after the interpreter (or the gosdk binary)
	findings   string
	// mixed says the program mixes two or more patterns; clean ones have
	// no findings.
	mixed bool
}

// corpusPrograms are the library corpus: 26 programs, 7 that mix
// patterns, 4 clean. Language "azure" is Python on a lab with Azurite.
var corpusPrograms = []corpusProgram{
	{"go pooled", "go", []string{"pooled"}, "", false},
	{"go transfer manager", "go", []string{"transfer"}, "", false},
	{"go head then get", "go", []string{"head-get"}, "explain-redundant-head explain-sequential", false},
	{"go client per object", "go", []string{"per-object"}, "explain-client-per-object explain-sequential", false},
	{"go mixed", "go", []string{"mixed"}, "explain-client-per-object explain-sequential", true},
	{"go verify", "go", []string{"verify"}, "explain-get-after-put explain-sequential", false},
	{"go bucket check", "go", []string{"bucket-check"}, "explain-bucket-per-object", false},
	{"go head, get, get again", "go", []string{"head-reread"}, "explain-redundant-head explain-reread explain-sequential", true},
	{"go ranges", "go", []string{"ranges"}, "explain-sequential explain-tiny-ranges", false},
	{"boto3 thread pool", "python", []string{"boto3_threadpool.py"}, "explain-expect-continue", false},
	{"boto3 head then get", "python", []string{"boto3_head_get.py"}, "explain-expect-continue explain-redundant-head explain-sequential", false},
	{"boto3 mixed", "python", []string{"boto3_mixed.py"}, "explain-client-per-object explain-expect-continue explain-sequential", true},
	{"boto3 list then head", "python", []string{"boto3_list_head.py"}, "explain-expect-continue explain-head-after-list", false},
	{"boto3 exists by listing", "python", []string{"boto3_exists_list.py"}, "explain-expect-continue explain-list-per-object explain-sequential", true},
	{"boto3 small multipart", "python", []string{"boto3_small_multipart.py"}, "explain-expect-continue explain-multi-request-upload explain-sequential", true},
	{"gcs thread pool", "python", []string{"gcs_threadpool.py"}, "", false},
	{"gcs get_blob, twice", "python", []string{"gcs_get_blob.py"}, "explain-redundant-head explain-reread explain-sequential", true},
	{"gcs client per object", "python", []string{"gcs_client_per_object.py"}, "explain-client-per-object", false},
	{"azure client per object", "azure", []string{"azure_client_per_object.py"}, "explain-client-per-object explain-sequential", false},
	{"azure exists, then download", "azure", []string{"azure_exists_download.py"}, "explain-redundant-head explain-sequential", false},
	{"node Promise.all", "node", []string{"promise_all.cjs"}, "", false},
	{"node client per object", "node", []string{"client_per_object.cjs"}, "explain-client-per-object explain-sequential", false},
	{"node mixed", "node", []string{"mixed.cjs"}, "explain-client-per-object explain-sequential", true},
	{"node head then get", "node", []string{"head_get.cjs"}, "explain-redundant-head explain-sequential", false},
	{"node verify", "node", []string{"verify.cjs"}, "explain-get-after-put explain-sequential", false},
	{"node re-read", "node", []string{"reread.cjs"}, "explain-reread explain-sequential", false},
}

// corpusRunner builds what the corpus programs need: the gosdk program,
// and the installed Python and Node clients (scripts/clients install);
// argv for a program, or "" for why it cannot run here.
type corpusRunner struct {
	gosdk, python, nodePath string
	azurite                 bool
}

func newCorpusRunner(t *testing.T) *corpusRunner {
	t.Helper()
	r := &corpusRunner{gosdk: filepath.Join(t.TempDir(), "gosdk")}
	if out, err := exec.Command("go", "build", "-o", r.gosdk, "./testdata/corpus/gosdk").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/corpus/gosdk: %v\n%s", err, out)
	}
	dir := os.Getenv("OBJBENCH_CLIENTS")
	if dir == "" {
		cache := os.Getenv("OBJBENCH_CACHE")
		if cache == "" {
			cache = filepath.Join("..", "..", ".cache")
		}
		dir = filepath.Join(cache, "clients")
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if _, err := os.Stat(filepath.Join(dir, "venv", "bin", "python")); err == nil {
		r.python = filepath.Join(dir, "venv", "bin", "python")
	}
	if _, err := exec.LookPath("azurite-blob"); err == nil {
		r.azurite = true
	}
	if _, err := os.Stat(filepath.Join(dir, "node", "node_modules", "@aws-sdk", "client-s3")); err == nil {
		if _, err := exec.LookPath("node"); err == nil {
			r.nodePath = filepath.Join(dir, "node", "node_modules")
		}
	}
	return r
}

func (r *corpusRunner) argv(p corpusProgram) ([]string, string) {
	switch p.lang {
	case "go":
		return append([]string{r.gosdk}, p.argv...), ""
	case "python", "azure":
		if p.lang == "azure" && !r.azurite {
			return nil, "no azurite-blob on PATH for the lab's Azure endpoint"
		}
		if r.python == "" {
			return nil, "the Python clients are not installed (scripts/clients install)"
		}
		return append([]string{r.python, filepath.Join("testdata", "corpus", "python", p.argv[0])}, p.argv[1:]...), ""
	case "node":
		if r.nodePath == "" {
			return nil, "the Node.js clients (or node) are not installed (scripts/clients install)"
		}
		return append([]string{"env", "NODE_PATH=" + r.nodePath, "node", filepath.Join("testdata", "corpus", "node", p.argv[0])}, p.argv[1:]...), ""
	}
	return nil, "unknown language " + p.lang
}

// findingsOf are e's finding ids but the context ones, sorted, and the
// findings' text for a failure message.
func findingsOf(e *document.Explain) (string, string) {
	var ids []string
	var text bytes.Buffer
	for _, f := range e.Findings {
		if !contextFindings[f.ID] {
			ids = append(ids, f.ID)
			text.WriteString("\n  " + f.ID + ": " + f.Text)
		}
	}
	sort.Strings(ids)
	return strings.Join(ids, " "), text.String()
}

// TestCorpusLibraries explains every program of the library corpus on the
// lab at 20 ms and checks that each gets exactly its findings: no false
// one, none missing. The mixed programs check that findings are about
// groups of connections (a pool's connections are not churned when new
// clients open beside them), and every finding must be consistent: a
// connection named by one of client per object, pool churn and idle
// connections only. One program at a time (their timing is what the
// findings read); about a minute on 2 cores, the Python and Node ones
// skipped without the installed clients.
func TestCorpusLibraries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs against the lab")
	}
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	r := newCorpusRunner(t)
	mixed, clean := 0, 0
	for _, p := range corpusPrograms {
		if p.mixed {
			mixed++
		}
		if p.findings == "" {
			clean++
		}
	}
	if len(corpusPrograms) < 20 || mixed < 6 || clean < 4 {
		t.Fatalf("the corpus has %d programs, %d mixed, %d clean; want at least 20, 6 and 4", len(corpusPrograms), mixed, clean)
	}
	for _, p := range corpusPrograms {
		t.Run(p.name, func(t *testing.T) {
			argv, why := r.argv(p)
			if why != "" {
				t.Skip(why)
			}
			apis := []string{"s3", "gcs"}
			if p.lang == "azure" {
				apis = []string{"azure"}
			}
			d := explainOn(t, apis, argv)
			e := &d.Explain
			got, text := findingsOf(e)
			if got != p.findings {
				t.Errorf("findings %q, want %q:%s", got, p.findings, text)
			}
			checkFindings(t, e)
			checkModel(t, e)
			if strings.HasSuffix(p.name, " mixed") {
				checkMixed(t, e)
			}
		})
	}
}

// checkFindings checks what every finding must hold: a confidence that
// names what shows it; a connection in at most one of the connection
// findings.
func checkFindings(t *testing.T, e *document.Explain) {
	t.Helper()
	owner := map[int]string{}
	for _, f := range e.Findings {
		if f.Confidence == nil || f.Confidence.FalseIf == "" || (len(f.Conns)+len(f.Requests) > 0 && len(f.Confidence.Shown) == 0) {
			t.Errorf("%s: confidence %+v, want what shows it and what would make it false", f.ID, f.Confidence)
		}
		if f.Confidence != nil && !f.Confidence.Priced && strings.Contains(f.Text, "saves about") {
			t.Errorf("%s: not priced, yet its text gives a saving: %s", f.ID, f.Text)
		}
		switch f.ID {
		case "explain-client-per-object", "explain-pool-churn":
			for _, c := range f.Conns {
				if o, ok := owner[c]; ok {
					t.Errorf("conn %d is named by %s and %s", c, o, f.ID)
				}
				owner[c] = f.ID
			}
		}
	}
}

// TestCorpusWhatIf checks the redundant-request savings by running the
// fixed program: the saving a finding predicts from a program's timeline
// is within 15% of the storage span (first connection to last answer)
// the fix saves, best of 5 runs each (7 for Python). About a minute. A HEAD before each GET costs one
// round trip per object: 12 objects at 20 ms, about 0.25 s.
func TestCorpusWhatIf(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs against the lab")
	}
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	r := newCorpusRunner(t)
	for _, tc := range []struct {
		name          string
		lang          string
		program, fix  []string
		finding, want string
	}{
		{"go head then get", "go", []string{"head-get"}, []string{"get"}, "explain-redundant-head", "one round trip per object"},
		{"go verify", "go", []string{"verify"}, []string{"put-seq"}, "explain-get-after-put", "one round trip per object"},
		{"go client per object", "go", []string{"per-object"}, []string{"put-seq"}, "explain-client-per-object", "a handshake per object"},
		{"boto3 head then get", "python", []string{"boto3_head_get.py"}, []string{"boto3_head_get.py", "NO_HEAD"}, "explain-redundant-head", "one round trip per object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog, why := r.argv(corpusProgram{lang: tc.lang, argv: tc.program})
			if why != "" {
				t.Skip(why)
			}
			fix, _ := r.argv(corpusProgram{lang: tc.lang, argv: tc.fix})
			if slices.Contains(fix, "NO_HEAD") {
				fix = append([]string{"env", "OBJBENCH_NO_HEAD=1"}, slices.DeleteFunc(fix, func(s string) bool { return s == "NO_HEAD" })...)
			}
			if tc.fix[0] == "put-seq" && tc.program[0] == "verify" {
				fix = append([]string{"env", "OBJBENCH_OBJECTS=10"}, fix...)
			}
			// Best of 5 (7 for Python, whose CPU per request, 5 ms, swings
			// most with the machine's other load): the least span is the
			// run least disturbed.
			runs := 5
			if tc.lang == "python" {
				runs = 7
			}
			best := func(argv []string) (*document.Explain, float64) {
				var e *document.Explain
				span := math.Inf(1)
				for range runs {
					d := explainProgram(t, argv)
					if s := storageSpan(&d.Explain); s < span {
						e, span = &d.Explain, s
					}
				}
				return e, span
			}
			e, span := best(prog)
			f := findingByID(e.Findings, tc.finding)
			if f.ID == "" {
				t.Fatalf("no %s finding", tc.finding)
			}
			_, fixSpan := best(fix)
			measured, predicted := span-fixSpan, f.Evidence["save_s"]
			t.Logf("%s: %s predicted %.3f s, measured %.3f s (%.3f - %.3f), %+.0f%%", tc.name, tc.finding, predicted, measured, span, fixSpan,
				100*(predicted-measured)/measured)
			if measured <= 0 || math.Abs(predicted-measured) > 0.15*measured {
				t.Errorf("%s: predicted saving %.3f s, measured %.3f s: want within 15%% (%s)", tc.finding, predicted, measured, tc.want)
			}
		})
	}
}

// storageSpan is a program's time from its first connection to its last
// answer: what a fix changes, without the start-up and exit around it.
func storageSpan(e *document.Explain) float64 {
	first, last := math.Inf(1), math.Inf(-1)
	for _, c := range e.Conns {
		first = min(first, c.OpenedS)
		for _, r := range c.Requests {
			last = max(last, r.DoneS+e.RTTms/2000)
		}
	}
	return last - first
}

// checkMixed checks the mixed programs (a pooled client, then a loop on
// it, then 3 reads each through a new client): the client per object
// finding names the 3 reads' connections and nothing of the pool's.
func checkMixed(t *testing.T, e *document.Explain) {
	t.Helper()
	f := findingByID(e.Findings, "explain-client-per-object")
	if len(f.Conns) != 3 {
		t.Errorf("client per object names conns %v, want the 3 reads' connections", f.Conns)
	}
	for _, c := range e.Conns {
		if !slices.Contains(f.Conns, c.ID) {
			continue
		}
		for _, r := range c.Requests {
			if r.Method != "GET" {
				t.Errorf("client per object names conn %d, which carried %s %s: the pool's", c.ID, r.Method, r.Path)
			}
		}
	}
}
