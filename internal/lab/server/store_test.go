package server

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestDiskStore: objects live in the store's folder, not in memory; a
// single PUT's ETag is its MD5 and a multipart object's S3's MD5 of MD5s;
// a range reads the right bytes; closing removes the folder.
func TestDiskStore(t *testing.T) {
	t.Parallel()
	h, err := S3Handler("")
	if err != nil {
		t.Fatal(err)
	}
	dir := h.(*closingHandler).Closer.(*storeDir).path
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")})
	body := make([]byte, 11<<20)
	for i := range body {
		body[i] = byte(i * 7 / 5)
	}
	sum := md5.Sum(body)
	out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(Bucket), Key: aws.String("single"), Body: bytes.NewReader(body)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := aws.ToString(out.ETag), `"`+hex.EncodeToString(sum[:])+`"`; got != want {
		t.Errorf("single ETag %s, want %s", got, want)
	}
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(Bucket), Key: aws.String("multi")})
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	var sums []byte
	for i, p := range [][]byte{body[:6<<20], body[6<<20:]} {
		po, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(Bucket), Key: aws.String("multi"), UploadId: up.UploadId,
			PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(p)})
		if err != nil {
			t.Fatal(err)
		}
		s := md5.Sum(p)
		sums = append(sums, s[:]...)
		parts = append(parts, types.CompletedPart{ETag: po.ETag, PartNumber: aws.Int32(int32(i + 1))})
	}
	co, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(Bucket), Key: aws.String("multi"),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		t.Fatal(err)
	}
	ms := md5.Sum(sums)
	if got, want := aws.ToString(co.ETag), fmt.Sprintf(`"%s-2"`, hex.EncodeToString(ms[:])); got != want {
		t.Errorf("multipart ETag %s, want %s", got, want)
	}
	// S3 answers reads and lists of either object with the ETag its
	// upload returned (a multipart object's is not its body's MD5).
	etags := map[string]string{"single": aws.ToString(out.ETag), "multi": aws.ToString(co.ETag)}
	for key, want := range etags {
		hd, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(Bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(Bucket), Key: aws.String(key), Range: aws.String("bytes=0-0")})
		if err != nil {
			t.Fatal(err)
		}
		g.Body.Close()
		if aws.ToString(hd.ETag) != want || aws.ToString(g.ETag) != want {
			t.Errorf("%s: HEAD ETag %s, GET ETag %s, want %s", key, aws.ToString(hd.ETag), aws.ToString(g.ETag), want)
		}
	}
	ls, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(Bucket)})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ls.Contents {
		if want := etags[aws.ToString(o.Key)]; aws.ToString(o.ETag) != want {
			t.Errorf("list: %s ETag %s, want %s", aws.ToString(o.Key), aws.ToString(o.ETag), want)
		}
	}
	for _, tc := range []struct {
		key        string
		start, end int
	}{{"single", 0, len(body) - 1}, {"multi", 0, len(body) - 1}, {"multi", 6<<20 - 10, 6<<20 + 10}, {"single", 5, 5}} {
		g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(Bucket), Key: aws.String(tc.key),
			Range: aws.String(fmt.Sprintf("bytes=%d-%d", tc.start, tc.end))})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(g.Body)
		g.Body.Close()
		if err != nil || !bytes.Equal(got, body[tc.start:tc.end+1]) {
			t.Errorf("%s %d-%d: %d bytes, %v, not the bytes written", tc.key, tc.start, tc.end, len(got), err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	var onDisk int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			onDisk += st.Size()
		}
	}
	if onDisk != 2*int64(len(body)) {
		t.Errorf("%d bytes in the store's folder, want %d", onDisk, 2*len(body))
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(Bucket), Key: aws.String("single")}); err != nil {
		t.Fatal(err)
	}
	if files2, _ := filepath.Glob(filepath.Join(dir, "*")); len(files2) != len(files)-1 {
		t.Errorf("delete left %d files of %d", len(files2), len(files))
	}
	if err := h.(*closingHandler).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("store folder still there after Close: %v", err)
	}
}

// TestStoreDirSweep: a store folder nobody holds (a killed lab's) goes at
// the next start; a held one stays.
func TestStoreDirSweep(t *testing.T) {
	t.Parallel()
	held, err := newStoreDir()
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	stale, err := os.MkdirTemp("", storeDirPattern)
	if err != nil {
		t.Fatal(err)
	}
	// Another package's lab may be sweeping at the same moment and hold
	// the stale folder's lock while it removes it: sweep again, a while.
	for i := 0; i < 100; i++ {
		sweepStoreDirs()
		if _, err := os.Stat(stale); os.IsNotExist(err) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale folder kept: %v", err)
	}
	if _, err := os.Stat(held.path); err != nil {
		t.Errorf("held folder swept: %v", err)
	}
}
