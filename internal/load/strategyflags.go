package load

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
	"github.com/objbench/objbench/internal/usage"
)

// StrategySettings are what `strategies` is asked to measure, as the user
// writes them; Check checks them.
type StrategySettings struct {
	// Objects per strategy and Parallel requests in flight: both positive.
	Objects, Parallel int
	// Sizes of the objects, comma-separated.
	Sizes string
	// Ops is put, get or both (put alone skips the downloads).
	Ops string
	// KeysFrom names a file of keys to download (ReadKeys).
	KeysFrom string
	// ExpectContinue sends 'Expect: 100-continue' on uploads.
	ExpectContinue bool
}

// Check checks the settings into the object sizes and whether downloads
// are skipped. Every error is a usage.Error naming the setting's field.
func (s StrategySettings) Check() (_ []int64, skipDownloads bool, _ error) {
	if s.Objects <= 0 || s.Parallel <= 0 {
		return nil, false, usage.Fieldf("{Objects} and {Parallel} must be positive")
	}
	sz, err := units.ParseSizes(s.Sizes)
	if err != nil {
		return nil, false, usage.Fieldf("{Sizes}: %w", err)
	}
	switch strings.ReplaceAll(s.Ops, " ", "") {
	case "put,get", "get,put", "get":
	case "put":
		skipDownloads = true
	default:
		return nil, false, usage.Fieldf("{Ops} %q: use put, get or put,get", s.Ops)
	}
	return sz, skipDownloads, nil
}

// AsMap is the options block of the strategies document (a shard adds
// its own): the settings as given.
func (s StrategySettings) AsMap() map[string]string {
	return map[string]string{"objects": fmt.Sprint(s.Objects), "size": s.Sizes, "parallel": fmt.Sprint(s.Parallel),
		"expect_continue": fmt.Sprint(s.ExpectContinue), "ops": s.Ops}
}

// SDKUpload is the upload path an SDK takes by default on a provider
// (scheme): GCS's resumable session, else the SDK's own choice.
func SDKUpload(scheme string) storage.UploadStyle {
	if scheme == "gs" {
		return storage.UploadResumable
	}
	return storage.UploadAuto
}

// ErrNoKeys says a keys file names no key.
var ErrNoKeys = errors.New("names no key")

// ReadKeys reads one key per line, skipping blanks and # comments; a file
// with none is ErrNoKeys. No path ("", no KeysFrom) is no keys. Errors
// name the KeysFrom setting (usage.Namedf); none is a usage error itself.
func ReadKeys(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, usage.Namedf("{KeysFrom}: %w", err)
	}
	defer fh.Close()
	var keys []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if k := strings.TrimSpace(sc.Text()); k != "" && !strings.HasPrefix(k, "#") {
			keys = append(keys, k)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, usage.Namedf("{KeysFrom}: %w", err)
	}
	if len(keys) == 0 {
		return nil, usage.Namedf("{KeysFrom} %s %w", path, ErrNoKeys)
	}
	return keys, nil
}
