package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestLinks: every link in README.md and docs/*.md points at a file in the
// repository and, with a #fragment, at a heading of that file.
func TestLinks(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	if len(pages) < 2 {
		t.Fatalf("no pages under %s", root)
	}
	for _, p := range pages {
		for _, problem := range checkPage(root, p) {
			t.Error(problem)
		}
	}
}

// TestCheckPage: the checker itself finds each kind of broken link, and
// passes good ones, on a tree made for the test.
func TestCheckPage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, page string
		want       []string // substrings of the problems, in order
	}{
		{"good", "# Top\n\n## A `b` c: d\n\n[x](#a-b-c-d) [y](other.md#the-wires-queue) [z](sub/) [w](https://example.com/x.md)\n", nil},
		{"duplicate headings", "# T\n\n## Same\n\n## Same\n\n[x](#same-1)\n", nil},
		{"missing file", "[x](gone.md)\n", []string{"gone.md: no such file"}},
		{"missing heading", "[x](other.md#nowhere)\n", []string{`other.md#nowhere: no heading "nowhere"`}},
		{"missing own heading", "# T\n[x](#elsewhere)\n", []string{`#elsewhere: no heading "elsewhere"`}},
		{"outside the tree", "[x](../../elsewhere/notes.md)\n", []string{"outside the repository"}},
		{"reference link", "[x]: gone.txt\n", []string{"gone.txt: no such file"}},
		{"code is not a link", "```\n[x](gone.md)\n```\n`[y](gone.md)`\n", nil},
		{"shared mentioned", "see ../shared/notes\n", []string{"../shared"}},
		{"private name", "as Seed 000 did\n", []string{`"Seed 000"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := filepath.Join(root, "docs")
			for name, text := range map[string]string{
				"docs/other.md":    "# Other\n\n### The wire's queue\n",
				"docs/sub/file.go": "package sub\n",
				"docs/page.md":     tc.page,
			} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := checkPage(root, filepath.Join(dir, "page.md"))
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d like %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q lacks %q", got[i], w)
				}
			}
		})
	}
}

// TestSlug: headings become anchors as GitHub makes them.
func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"The lab's network model":                                  "the-labs-network-model",
		"Explaining any program (`objbench explain`)":              "explaining-any-program-objbench-explain",
		"S3 client libraries: `--client sdk` and `--client minio`": "s3-client-libraries---client-sdk-and---client-minio",
		"Safety, errors and exit status":                           "safety-errors-and-exit-status",
		"objbench — design":                                        "objbench--design",
		"A_b 2":                                                    "a_b-2",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// privateName is how the project's notes name the studies it grew from
// ("seed 000"), which no user has seen.
var privateName = regexp.MustCompile(`(?i)\bseed \d{3}\b`)

var (
	fence      = regexp.MustCompile("^\\s*(```|~~~)")
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLink    = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
)

// prose is a page's lines outside fenced code blocks, with their numbers.
func prose(text string) (lines []string, numbers []int) {
	in := false
	for i, l := range strings.Split(text, "\n") {
		if fence.MatchString(l) {
			in = !in
			continue
		}
		if !in {
			lines, numbers = append(lines, l), append(numbers, i+1)
		}
	}
	return lines, numbers
}

// anchors are the fragments a page's headings answer to, GitHub-style: a
// heading's slug, and slug-N for its N-th repeat.
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	lines, _ := prose(text)
	for _, l := range lines {
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's anchor for a heading: lower case, spaces to hyphens,
// and every character but letters, digits, hyphens and underscores gone.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checkPage returns what is wrong with page's links, one sentence each.
func checkPage(root, page string) []string {
	raw, err := os.ReadFile(page)
	if err != nil {
		return []string{err.Error()}
	}
	name, _ := filepath.Rel(root, page)
	var problems []string
	bad := func(n int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: ", name, n)+fmt.Sprintf(format, args...))
	}
	lines, numbers := prose(string(raw))
	for i, l := range lines {
		n := numbers[i]
		if strings.Contains(l, "../shared") {
			bad(n, "mentions ../shared, which is not in the repository")
		}
		if m := privateName.FindString(l); m != "" {
			bad(n, "says %q, a name only the project's authors know: say what the thing does", m)
		}
		l = codeSpan.ReplaceAllString(l, "")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(l, -1) {
			targets = append(targets, m[1])
		}
		if m := refLink.FindStringSubmatch(l); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if p := checkTarget(root, page, target); p != "" {
				bad(n, "%s", p)
			}
		}
	}
	return problems
}

// checkTarget says what is wrong with one link target of page, or "".
func checkTarget(root, page, target string) string {
	file, frag, _ := strings.Cut(target, "#")
	dest := page
	if file != "" {
		dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
		if rel, err := filepath.Rel(root, dest); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return target + ": outside the repository"
		}
		if _, err := os.Stat(dest); err != nil {
			return target + ": no such file"
		}
	}
	if frag == "" {
		return ""
	}
	if !strings.HasSuffix(dest, ".md") {
		return target + ": a fragment of a file that is not Markdown"
	}
	text, err := os.ReadFile(dest)
	if err != nil {
		return target + ": " + err.Error()
	}
	if !anchors(string(text))[frag] {
		return fmt.Sprintf("%s: no heading %q in %s", target, frag, filepath.Base(dest))
	}
	return ""
}

// citation is a document named in code: a path ending in .md, with an
// optional #heading.
var citation = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:[\w.-]+/)*[\w.-]+\.md\b)(#[\w-]+)?`)

// TestCodeCitations: every document a code comment, help text, script or
// deploy file cites (a path such as docs/design.md#timers) is in the
// repository, with the heading it names.
func TestCodeCitations(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".txt", ".sh", ".yaml", ".yml", ".py", ".cjs", ".mjs":
		default:
			return nil
		}
		if filepath.Ext(name) == ".txt" && filepath.Base(filepath.Dir(p)) == "help" {
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if m := privateName.Find(raw); m != nil {
				t.Errorf("%s: says %q, a name only the project's authors know", p, m)
			}
		}
		if name == "links_test.go" {
			return nil // its own table cites missing documents on purpose
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for i, l := range strings.Split(string(raw), "\n") {
			for _, m := range citation.FindAllStringSubmatch(l, -1) {
				checked++
				// ./ and ../ are the citing file's neighbours; any other
				// path is from the repository's root.
				from := filepath.Join(root, "cited-from-code")
				if strings.HasPrefix(m[1], "./") || strings.HasPrefix(m[1], "../") {
					from = p
				}
				if problem := checkTarget(root, from, m[1]+m[2]); problem != "" {
					t.Errorf("%s:%d: %s", rel, i+1, problem)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Error("no citation found: the pattern no longer matches the code's")
	}
}
