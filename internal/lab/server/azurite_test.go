package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
)

// TestAzuriteStoreOnDisk: Azurite keeps a 64 MiB blob in the lab's store
// folder (on disk, not --inMemoryPersistence), serves it back whole, and
// Stop removes the folder.
func TestAzuriteStoreOnDisk(t *testing.T) {
	const size = 64 << 20
	ctx := context.Background()
	az, err := StartAzurite(ctx, 0, nil, nil)
	if errors.Is(err, ErrNoAzurite) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			az.Stop()
		}
	}()
	if base := filepath.Base(az.Dir); !strings.HasPrefix(base, "objbench-store-") {
		t.Errorf("Azurite's folder %s is not a lab store folder", az.Dir)
	}
	c, err := azblob.NewClientFromConnectionString(AzureConnectionString("http", "http://"+az.Addr+"/"+AzuriteAccount), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateContainer(ctx, Bucket, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadStream(ctx, Bucket, "big", &patternReader{n: size}, nil); err != nil {
		t.Fatal(err)
	}
	want := sha256.New()
	_, _ = io.Copy(want, &patternReader{n: size})
	resp, err := c.DownloadStream(ctx, Bucket, "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := sha256.New()
	n, err := io.Copy(got, resp.Body)
	resp.Body.Close()
	if err != nil || n != size || string(got.Sum(nil)) != string(want.Sum(nil)) {
		t.Fatalf("download: %d bytes, %v, not the bytes written", n, err)
	}
	var onDisk int64
	_ = filepath.Walk(az.Dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			onDisk += fi.Size()
		}
		return nil
	})
	if onDisk < size {
		t.Errorf("%d bytes in Azurite's folder, want at least %d: the blob is not on disk", onDisk, size)
	}
	az.Stop()
	stopped = true
	if _, err := os.Stat(az.Dir); !os.IsNotExist(err) {
		t.Errorf("Azurite's folder still there after Stop: %v", err)
	}
}
