package load

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/units"
)

// CheckStrategies checks what `strategies` is asked to measure: objects
// per strategy and requests in flight (both positive), the sizes, and ops
// (put, get or both; put alone skips the downloads). Every error is the
// user's to fix, and names the setting by its flag.
func CheckStrategies(objects, parallel int, sizes, ops string) (_ []int64, skipDownloads bool, _ error) {
	if objects <= 0 || parallel <= 0 {
		return nil, false, errors.New("--objects and --parallel must be positive")
	}
	sz, err := units.ParseSizes(sizes)
	if err != nil {
		return nil, false, fmt.Errorf("--size: %w", err)
	}
	switch strings.ReplaceAll(ops, " ", "") {
	case "put,get", "get,put", "get":
	case "put":
		skipDownloads = true
	default:
		return nil, false, fmt.Errorf("--ops %q: use put, get or put,get", ops)
	}
	return sz, skipDownloads, nil
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
// with none is ErrNoKeys. No path ("", no --keys-from) is no keys.
func ReadKeys(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--keys-from: %w", err)
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
		return nil, fmt.Errorf("--keys-from: %w", err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("--keys-from %s %w", path, ErrNoKeys)
	}
	return keys, nil
}
