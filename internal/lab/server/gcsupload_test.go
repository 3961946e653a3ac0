package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"
)

func gcsLab(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	h, err := GCSHandler("http://" + srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		h.(*closingHandler).Close()
	})
	return srv
}

// TestGCSUploadsStream: every way the Go client uploads (one multipart
// request, a resumable session in chunks) stores the bytes and checksums
// GCS would, and the lab allocates far less than the object while the
// body arrives (fake-gcs-server's own handlers read it whole).
func TestGCSUploadsStream(t *testing.T) {
	srv := gcsLab(t)
	ctx := context.Background()
	client, err := storage.NewClient(ctx, option.WithEndpoint(srv.URL+"/storage/v1/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	for _, tc := range []struct {
		name      string
		size      int64
		chunkSize int
	}{
		{"multipart", 3 << 20, 0},
		{"resumable in chunks", 20 << 20, 1 << 20},
		{"resumable one chunk", 1 << 20, 8 << 20},
		{"empty", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "up/" + strings.ReplaceAll(tc.name, " ", "-")
			want := md5.New()
			_, _ = io.Copy(want, &patternReader{n: tc.size})
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			w := client.Bucket(Bucket).Object(key).NewWriter(ctx)
			w.ChunkSize = tc.chunkSize
			w.ContentType = "application/x-test"
			w.Metadata = map[string]string{"k": "v"}
			if _, err := io.Copy(w, &patternReader{n: tc.size}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; tc.size >= 16<<20 && alloc > uint64(tc.size)/2 {
				t.Errorf("%d MiB allocated for a %d MiB upload: the body passes through memory", alloc>>20, tc.size>>20)
			}
			attrs := w.Attrs()
			if attrs.Size != tc.size || !bytes.Equal(attrs.MD5, want.Sum(nil)) {
				t.Errorf("stored %d bytes md5 %x, want %d bytes md5 %x", attrs.Size, attrs.MD5, tc.size, want.Sum(nil))
			}
			got, err := client.Bucket(Bucket).Object(key).Attrs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.ContentType != "application/x-test" || got.Metadata["k"] != "v" || got.Size != tc.size || got.CRC32C != attrs.CRC32C {
				t.Errorf("attributes read back: %+v", got)
			}
			r, err := client.Bucket(Bucket).Object(key).NewReader(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sum := md5.New()
			n, err := io.Copy(sum, r) // the Go client checks the CRC32C as it reads
			r.Close()
			if err != nil || n != tc.size || !bytes.Equal(sum.Sum(nil), want.Sum(nil)) {
				t.Errorf("read back %d bytes (%v), not the bytes written", n, err)
			}
		})
	}
}

// TestGCSResumableKnownTotal: a session in chunks that state the total
// (as the Python client sends them) answers 308 with the range received
// until the last chunk, and a declared MD5 that does not match is refused.
func TestGCSResumableKnownTotal(t *testing.T) {
	srv := gcsLab(t)
	start := func(meta string) string {
		resp, err := http.Post(srv.URL+"/upload/storage/v1/b/"+Bucket+"/o?uploadType=resumable", "application/json", strings.NewReader(meta))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Location") == "" {
			t.Fatalf("start: %s, Location %q", resp.Status, resp.Header.Get("Location"))
		}
		return resp.Header.Get("Location")
	}
	put := func(loc, cr string, body []byte) *http.Response {
		req, _ := http.NewRequest(http.MethodPut, loc, bytes.NewReader(body))
		req.Header.Set("Content-Range", cr)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	body := bytes.Repeat([]byte("ab"), 100)
	loc := start(`{"name":"known"}`)
	if resp := put(loc, "bytes 0-99/200", body[:100]); resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Range") != "bytes=0-99" {
		t.Fatalf("first chunk: %s, Range %q; want 308 and bytes=0-99", resp.Status, resp.Header.Get("Range"))
	}
	if resp := put(loc, "bytes 100-199/200", body[100:]); resp.StatusCode != http.StatusOK {
		t.Fatalf("last chunk: %s", resp.Status)
	}
	resp, err := http.Get(srv.URL + "/storage/v1/b/" + Bucket + "/o/known?alt=media")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, body) {
		t.Fatalf("read back %q", got)
	}
	wrong := base64.StdEncoding.EncodeToString(make([]byte, 16))
	loc = start(fmt.Sprintf(`{"name":"badsum","md5Hash":%q}`, wrong))
	if resp := put(loc, "bytes 0-199/200", body); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a wrong declared MD5: %s, want 400", resp.Status)
	}
}

// TestGCSMultipartExpectKeepsConnection: a multipart upload that asks for
// 100-continue keeps its connection, as on GCS, also when the body's last
// bytes (the closing boundary's line end) come in a segment of their own,
// as they do over the lab's wire: the lab reads the body to its end before
// answering, where Go's server would otherwise close the connection (a
// small upload with Expect then paid a new connection every time).
func TestGCSMultipartExpectKeepsConnection(t *testing.T) {
	srv := gcsLab(t)
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	body := "--b\r\nContent-Type: application/json\r\n\r\n{\"name\":\"expect\"}\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b--\r\n"
	fmt.Fprintf(c, "POST /upload/storage/v1/b/%s/o?uploadType=multipart HTTP/1.1\r\nHost: lab\r\n"+
		"Content-Type: multipart/related; boundary=b\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", Bucket, len(body))
	br := bufio.NewReader(c)
	cont, err := http.ReadResponse(br, nil)
	if err != nil || cont.StatusCode != http.StatusContinue {
		t.Fatalf("want 100 Continue: %v %v", cont, err)
	}
	tail := len(body) - 2
	if _, err := io.WriteString(c, body[:tail]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the line end comes later, as over a wire
	_, _ = io.WriteString(c, body[tail:])
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Errorf("%s, closing the connection %v: want 200 on a connection kept open", resp.Status, resp.Close)
	}
}
