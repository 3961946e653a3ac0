package load

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/usage"
)

func TestStrategySettingsCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		objects, parallel int
		sizes, ops        string
		want              []int64
		skip              bool
		field             string // the setting a usage error names
	}{
		{50, 16, "0,7KiB", "put,get", []int64{0, 7 << 10}, false, ""},
		{50, 16, "1KiB", "get, put", []int64{1 << 10}, false, ""},
		{50, 16, "1KiB", "get", []int64{1 << 10}, false, ""},
		{50, 16, "1KiB", "put", []int64{1 << 10}, true, ""},
		{0, 16, "1KiB", "put", nil, false, "Objects"},
		{50, 0, "1KiB", "put", nil, false, "Objects"},
		{50, 16, "huge", "put", nil, false, "Sizes"},
		{50, 16, "1KiB", "list", nil, false, "Ops"},
	}
	for _, c := range cases {
		got, skip, err := StrategySettings{Objects: c.objects, Parallel: c.parallel, Sizes: c.sizes, Ops: c.ops}.Check()
		if c.field != "" {
			checkField(t, err, c.field)
			continue
		}
		if err != nil || !slices.Equal(got, c.want) || skip != c.skip {
			t.Errorf("%+v: sizes %v skip %v err %v", c, got, skip, err)
		}
	}
}

// TestStrategySettingsAsMap: the strategies document's options block, key
// by key and value by value as the flags give them.
func TestStrategySettingsAsMap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s    StrategySettings
		want map[string]string
	}{
		{StrategySettings{Objects: 50, Parallel: 16, Sizes: "0,7KiB", Ops: "put,get"},
			map[string]string{"objects": "50", "size": "0,7KiB", "parallel": "16", "expect_continue": "false", "ops": "put,get"}},
		{StrategySettings{Objects: 2, Parallel: 1, Sizes: "1MiB", Ops: "get", KeysFrom: "keys.txt", ExpectContinue: true},
			map[string]string{"objects": "2", "size": "1MiB", "parallel": "1", "expect_continue": "true", "ops": "get"}},
		{StrategySettings{}, map[string]string{"objects": "0", "size": "", "parallel": "0", "expect_continue": "false", "ops": ""}},
	}
	for _, c := range cases {
		if got := c.s.AsMap(); !maps.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.s, got, c.want)
		}
	}
}

func TestSDKUpload(t *testing.T) {
	t.Parallel()
	for scheme, want := range map[string]storage.UploadStyle{"gs": storage.UploadResumable, "s3": storage.UploadAuto, "az": storage.UploadAuto} {
		if got := SDKUpload(scheme); got != want {
			t.Errorf("%s: %v, want %v", scheme, got, want)
		}
	}
}

func TestReadKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keys, err := ReadKeys(write("keys.txt", "# mine\na/1\n\n  b/2  \n#c\n"))
	if err != nil || !slices.Equal(keys, []string{"a/1", "b/2"}) {
		t.Errorf("keys %q, %v", keys, err)
	}
	if _, err := ReadKeys(write("empty.txt", "# none\n\n")); !errors.Is(err, ErrNoKeys) {
		t.Errorf("a file of comments: %v, want ErrNoKeys", err)
	}
	if keys, err := ReadKeys(""); keys != nil || err != nil {
		t.Errorf("no --keys-from: %q, %v, want no keys and no error", keys, err)
	}
	if _, err := ReadKeys(filepath.Join(dir, "missing")); err == nil || errors.Is(err, ErrNoKeys) || usage.Is(err) || !strings.Contains(err.Error(), "KeysFrom: ") {
		t.Errorf("a missing file: %v", err)
	}
}
