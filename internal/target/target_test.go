package target

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/mem"
	"github.com/objbench/objbench/internal/usage"
)

// bucket is a fresh in-memory bucket named for the test, with keys in it.
func bucket(t *testing.T, keys ...string) (storage.Backend, storage.Target) {
	t.Helper()
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(t.Name()))
	b := mem.New(name, true)
	for _, k := range keys {
		if err := b.Put(context.Background(), k, bytes.NewReader([]byte("x")), 1); err != nil {
			t.Fatal(err)
		}
	}
	return b, storage.Target{Scheme: "mem", Bucket: name}
}

func TestCheckPrefix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("empty prefix", func(t *testing.T) {
		b, tg := bucket(t, "other/a")
		keep, err := checkPrefix(ctx, b, tg, "objbench/run/", false)
		if err != nil || len(keep) != 0 {
			t.Fatalf("empty prefix: keep %v, err %v; want nothing kept and no error", keep, err)
		}
	})
	t.Run("non-empty refused", func(t *testing.T) {
		b, tg := bucket(t, "objbench/run/a")
		_, err := checkPrefix(ctx, b, tg, "objbench/run/", false)
		if err == nil || !strings.Contains(err.Error(), "is not empty") || !strings.Contains(err.Error(), "--force") {
			t.Fatalf("non-empty prefix without --force: %v, want a refusal naming --force", err)
		}
	})
	t.Run("forced keeps what is there", func(t *testing.T) {
		b, tg := bucket(t, "objbench/run/a", "objbench/run/b/c", "objbench/other")
		keep, err := checkPrefix(ctx, b, tg, "objbench/run/", true)
		if err != nil {
			t.Fatal(err)
		}
		if len(keep) != 2 || !keep["objbench/run/a"] || !keep["objbench/run/b/c"] {
			t.Fatalf("keep %v, want exactly the two keys under the prefix", keep)
		}
	})
}

func TestCheckBucket(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	missing := mem.New("target-test-missing-"+time.Now().Format("150405.000000000"), false)
	tg := storage.Target{Scheme: "mem", Bucket: "nope"}
	err := checkBucket(ctx, missing, tg, "", false, time.Second)
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), "--create-bucket") {
		t.Fatalf("missing bucket: %v, want a line naming --create-bucket", err)
	}
	if err := checkBucket(ctx, missing, tg, "", true, time.Second); err != nil {
		t.Fatalf("create: %v", err)
	}
	if ok, err := missing.BucketExists(ctx); err != nil || !ok {
		t.Fatalf("after create: exists %t, %v", ok, err)
	}
}

func TestRunPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		target, prefix, runID string
		persistent            bool
		want                  string
	}{
		{"", "", "R1", false, "objbench/R1/"},
		{"base/", "", "R1", false, "base/objbench/R1/"},
		{"base/", "", "R1", true, "base/objbench/probe/"},
		{"base/", "/mine/", "R1", true, "base/mine/"},
		{"", "a/b", "R1", false, "a/b/"},
	}
	for _, tt := range tests {
		if got := RunPrefix(tt.target, tt.prefix, tt.runID, tt.persistent); got != tt.want {
			t.Errorf("RunPrefix(%q, %q, %q, %t) = %q, want %q", tt.target, tt.prefix, tt.runID, tt.persistent, got, tt.want)
		}
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	isUsage := func(err error) bool { var u usage.Error; return errors.As(err, &u) }
	t.Run("refusals are usage errors", func(t *testing.T) {
		for _, c := range []struct {
			cfg   Config
			field string // the setting named ("" for none)
		}{
			{Config{URL: "mem://x", Timeout: 0}, "Timeout"},
			{Config{URL: "mem://x", Timeout: time.Second, Prefix: "a/../b"}, "Prefix"},
			{Config{URL: "mem://x", Timeout: time.Second, PartConcurrency: -1}, "PartConcurrency"},
			{Config{URL: "mem://x", Timeout: time.Second, Client: "curl"}, "Client"},
			{Config{URL: "ftp://x", Timeout: time.Second}, ""},
			{Config{URL: "lab", Timeout: time.Second, Endpoint: "http://127.0.0.1:1"}, "Endpoint"},
			{Config{URL: "lab", Timeout: time.Second, LabAPI: "ftp"}, "API"},
			{Config{URL: "mem://x", Timeout: time.Second, Upload: storage.UploadResumable}, ""},
		} {
			e, err := Open(ctx, c.cfg)
			if e != nil {
				e.Close()
			}
			if !isUsage(err) || usage.FieldOf(err) != c.field || c.field != "" && strings.Contains(err.Error(), "--") {
				t.Errorf("Open(%+v) = %v (field %q), want a usage error naming the field %q", c.cfg, err, usage.FieldOf(err), c.field)
			}
		}
	})
	t.Run("non-empty prefix refused, forced run keeps it", func(t *testing.T) {
		_, tg := bucket(t, "p/objbench/R1/old")
		cfg := Config{URL: "mem://" + tg.Bucket + "/p", Timeout: time.Second, RunID: "R1"}
		if _, err := Open(ctx, cfg); err == nil || isUsage(err) {
			t.Fatalf("non-empty prefix: %v, want a plain refusal", err)
		}
		cfg.Force = true
		e, err := Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if e.Prefix != "p/objbench/R1/" || !e.Keep["p/objbench/R1/old"] {
			t.Fatalf("prefix %q keep %v", e.Prefix, e.Keep)
		}
		if info := e.Info(); info.Provider != "mem" || info.URL != "mem://"+tg.Bucket+"/p" {
			t.Errorf("info %+v", info)
		}
	})
	t.Run("persistent pool skips the prefix check", func(t *testing.T) {
		_, tg := bucket(t, "objbench/probe/obj-0")
		e, err := Open(ctx, Config{URL: "mem://" + tg.Bucket, Timeout: time.Second, Persistent: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if e.Prefix != "objbench/probe/" || e.Keep != nil {
			t.Fatalf("prefix %q keep %v", e.Prefix, e.Keep)
		}
	})
}

func TestCheckUploadStyle(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		u      storage.UploadStyle
		scheme string
		ok     bool
	}{
		{storage.UploadResumable, "gs", true}, {storage.UploadResumable, "s3", false},
		{storage.UploadMultipart, "gs", false}, {storage.UploadMultipart, "az", true}, {storage.UploadAuto, "gs", true},
	} {
		if err := CheckUploadStyle(tt.u, tt.scheme); (err == nil) != tt.ok {
			t.Errorf("CheckUploadStyle(%v, %s) = %v, want ok %t", tt.u, tt.scheme, err, tt.ok)
		}
	}
}

func TestIsLab(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{"": true, "lab": true, "lab:cross-region": true, "labs3://x": false, "s3://lab": false} {
		if IsLab(raw) != want {
			t.Errorf("IsLab(%q) = %t", raw, !want)
		}
	}
	if LabProfile("lab:cross-region") != "cross-region" || LabProfile("lab") != "" {
		t.Error("LabProfile")
	}
}
