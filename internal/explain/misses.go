package explain

import (
	"net/http"
	"sort"
	"strings"

	"github.com/objbench/objbench/internal/document"
)

// expectedMisses counts the 404 answers a program expected: a check or a
// first try (a HEAD before a create, as warp does; an upload into a
// container not made yet) answered 404 and followed, later in the run, by
// the creation of what was missing: the same path, or the bucket or
// container it lies in. A 404 nothing created afterwards is an error.
func expectedMisses(reqs []*document.ExplainRequest) int {
	s := make([]*document.ExplainRequest, len(reqs))
	copy(s, reqs)
	sort.SliceStable(s, func(i, j int) bool { return s[i].ArrivedS < s[j].ArrivedS })
	n := 0
	for i, r := range s {
		if r.Status != http.StatusNotFound {
			continue
		}
		for _, c := range s[i+1:] {
			if creates(c, r.Path) {
				n++
				break
			}
		}
	}
	return n
}

// creates says whether request c created path or the bucket or container
// path lies in.
func creates(c *document.ExplainRequest, path string) bool {
	if c.Status >= 300 || c.Status == 0 || (c.Method != http.MethodPut && c.Method != http.MethodPost) {
		return false
	}
	switch {
	case strings.HasPrefix(c.Operation, "Create"): // CreateBucket, CreateContainer, CreateMultipartUpload
		if c.Operation == "CreateBucket" && strings.HasPrefix(c.Path, "/storage/v1/b") {
			return strings.HasPrefix(path, "/storage/v1/b/") || strings.Contains(path, "/b/")
		}
		return path == c.Path || strings.HasPrefix(path, strings.TrimSuffix(c.Path, "/")+"/")
	}
	return c.Path == path
}
