package server

import (
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// patternReader yields n bytes of a fixed pattern without holding them,
// so that the test's own heap does not count the body.
type patternReader struct{ off, n int64 }

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n-r.off {
		p = p[:r.n-r.off]
	}
	for i := range p {
		p[i] = byte((r.off + int64(i)) * 7 / 5)
	}
	r.off += int64(len(p))
	return len(p), nil
}

func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestGCSStoreOnDisk: a 64 MiB object PUT to and GET from the lab's GCS
// endpoint comes back whole, lies in the store's folder, does not stay in
// the heap, and closing the handler removes the folder.
func TestGCSStoreOnDisk(t *testing.T) {
	const size = 64 << 20
	srv := httptest.NewUnstartedServer(nil)
	h, err := GCSHandler("http://" + srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	defer srv.Close()
	dir := h.(*closingHandler).Closer.(*storeDir).path
	before := heapInuse()

	want := sha256.New()
	_, _ = io.Copy(want, &patternReader{n: size})
	req, _ := http.NewRequest("POST", srv.URL+"/upload/storage/v1/b/"+Bucket+"/o?uploadType=media&name=big", &patternReader{n: size})
	req.ContentLength = size
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("upload: %s", resp.Status)
	}
	resp, err = http.Get(srv.URL + "/storage/v1/b/" + Bucket + "/o/big?alt=media")
	if err != nil {
		t.Fatal(err)
	}
	got := sha256.New()
	n, err := io.Copy(got, resp.Body)
	resp.Body.Close()
	if err != nil || n != size || string(got.Sum(nil)) != string(want.Sum(nil)) {
		t.Fatalf("download: %d bytes, %v, not the bytes written", n, err)
	}
	after := heapInuse()
	if grew := int64(after) - int64(before); grew > 16<<20 {
		t.Errorf("heap in use grew by %d MiB over a 64 MiB object: the object stays in memory", grew>>20)
	}
	var onDisk int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			onDisk += fi.Size()
		}
		return nil
	})
	if onDisk < size {
		t.Errorf("%d bytes in the store's folder, want at least %d", onDisk, size)
	}
	if err := h.(*closingHandler).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("store folder still there after Close: %v", err)
	}
}
