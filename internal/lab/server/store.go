package server

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/johannesboyne/gofakes3"
)

// diskStore is the lab S3 server's backend (gofakes3's Backend and
// MultipartBackend): an object's bytes live in files under dir, never in
// memory, so that a run's resident size does not grow with the objects it
// moves (a 5 GiB object costs the lab a copy buffer, not 5 GiB). A
// multipart object is its parts' files in order, served as one body
// without being joined; a read opens only the files its range covers.
// Metadata (keys, sizes, MD5s) is in memory.
type diskStore struct {
	dir     string
	seq     atomic.Int64
	mu      sync.RWMutex
	buckets map[string]*diskBucket
	uploads map[gofakes3.UploadID]*diskUpload
}

type diskBucket struct {
	created time.Time
	objects map[string]*diskObject
}

// diskObject is one stored version. Its files are removed once it is
// replaced or deleted and no read still holds it (refs).
type diskObject struct {
	name string
	size int64
	hash []byte // MD5 of the whole body, as gofakes3 reports it (of the parts' MD5s for a multipart object)
	// etag, when set, is the object's ETag where it is not hash in hex: a
	// multipart object's "MD5-N", as S3 answers it (see s3Answers).
	etag     string
	meta     map[string]string
	modified time.Time
	segs     []segment
	refs     atomic.Int64 // 1 while stored, +1 per open read
}

type segment struct {
	path string
	size int64
}

type diskUpload struct {
	bucket, object string
	meta           map[string]string
	initiated      time.Time
	parts          map[int]*diskPart
}

type diskPart struct {
	seg      segment
	etag     string // quoted hex MD5
	modified time.Time
}

func newDiskStore(dir string) *diskStore {
	return &diskStore{dir: dir, buckets: map[string]*diskBucket{}, uploads: map[gofakes3.UploadID]*diskUpload{}}
}

func (o *diskObject) release() {
	if o.refs.Add(-1) == 0 {
		for _, s := range o.segs {
			_ = os.Remove(s.path)
		}
	}
}

// spool writes r (exactly size bytes) to a new file, returning its MD5.
func (d *diskStore) spool(r io.Reader, size int64) (segment, []byte, error) {
	path := filepath.Join(d.dir, strconv.FormatInt(d.seq.Add(1), 10))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return segment{}, nil, err
	}
	h := md5.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != size {
		err = gofakes3.ErrIncompleteBody
	}
	if err == nil { // read to the body's end: a decoder checks its length and trailers there
		var one [1]byte
		switch m, rerr := r.Read(one[:]); {
		case m > 0:
			err = gofakes3.ErrIncompleteBody
		case rerr != nil && rerr != io.EOF:
			err = rerr
		}
	}
	if err != nil {
		_ = os.Remove(path)
		return segment{}, nil, err
	}
	return segment{path: path, size: size}, h.Sum(nil), nil
}

func (d *diskStore) ListBuckets() ([]gofakes3.BucketInfo, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]gofakes3.BucketInfo, 0, len(d.buckets))
	for name, b := range d.buckets {
		out = append(out, gofakes3.BucketInfo{Name: name, CreationDate: gofakes3.NewContentTime(b.created)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (d *diskStore) ListBucket(name string, prefix *gofakes3.Prefix, page gofakes3.ListBucketPage) (*gofakes3.ObjectList, error) {
	if prefix == nil {
		prefix = &gofakes3.Prefix{}
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	b := d.buckets[name]
	if b == nil {
		return nil, gofakes3.BucketNotFound(name)
	}
	keys := make([]string, 0, len(b.objects))
	for k := range b.objects {
		if page.Marker == "" || k > page.Marker {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := gofakes3.NewObjectList()
	var match gofakes3.PrefixMatch
	var cnt int64
	last := ""
	for i, k := range keys {
		switch {
		case !prefix.Match(k, &match):
			continue
		case match.CommonPrefix:
			if match.MatchedPart == last {
				continue
			}
			out.AddPrefix(match.MatchedPart)
			last = match.MatchedPart
		default:
			o := b.objects[k]
			out.Add(&gofakes3.Content{
				Key:          k,
				LastModified: gofakes3.NewContentTime(o.modified),
				ETag:         o.eTag(),
				Size:         o.size,
			})
		}
		cnt++
		if page.MaxKeys > 0 && cnt >= page.MaxKeys {
			out.NextMarker = k
			out.IsTruncated = i+1 < len(keys)
			break
		}
	}
	return out, nil
}

func (d *diskStore) CreateBucket(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.buckets[name] != nil {
		return gofakes3.ResourceError(gofakes3.ErrBucketAlreadyExists, name)
	}
	d.buckets[name] = &diskBucket{created: time.Now(), objects: map[string]*diskObject{}}
	return nil
}

func (d *diskStore) BucketExists(name string) (bool, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.buckets[name] != nil, nil
}

func (d *diskStore) DeleteBucket(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buckets[name]
	if b == nil {
		return gofakes3.ErrNoSuchBucket
	}
	if len(b.objects) > 0 {
		return gofakes3.ResourceError(gofakes3.ErrBucketNotEmpty, name)
	}
	delete(d.buckets, name)
	return nil
}

func (d *diskStore) ForceDeleteBucket(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buckets[name]
	if b == nil {
		return gofakes3.ErrNoSuchBucket
	}
	for _, o := range b.objects {
		o.release()
	}
	delete(d.buckets, name)
	return nil
}

// lookup returns the object with a read reference taken.
func (d *diskStore) lookup(bucket, key string) (*diskObject, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	b := d.buckets[bucket]
	if b == nil {
		return nil, gofakes3.BucketNotFound(bucket)
	}
	o := b.objects[key]
	if o == nil {
		return nil, gofakes3.KeyNotFound(key)
	}
	o.refs.Add(1)
	return o, nil
}

func (d *diskStore) GetObject(bucket, key string, rng *gofakes3.ObjectRangeRequest) (*gofakes3.Object, error) {
	o, err := d.lookup(bucket, key)
	if err != nil {
		return nil, err
	}
	r, err := rng.Range(o.size)
	if err != nil {
		o.release()
		return nil, err
	}
	start, length := int64(0), o.size
	if r != nil {
		start, length = r.Start, r.Length
	}
	return &gofakes3.Object{
		Name: o.name, Metadata: o.answerMeta(), Size: o.size, Hash: o.hash, Range: r,
		Contents: &segReader{obj: o, off: start, end: start + length},
	}, nil
}

func (d *diskStore) HeadObject(bucket, key string) (*gofakes3.Object, error) {
	o, err := d.lookup(bucket, key)
	if err != nil {
		return nil, err
	}
	defer o.release()
	return &gofakes3.Object{Name: o.name, Metadata: o.answerMeta(), Size: o.size, Hash: o.hash, Contents: io.NopCloser(strings.NewReader(""))}, nil
}

func (d *diskStore) DeleteObject(bucket, key string) (gofakes3.ObjectDeleteResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buckets[bucket]
	if b == nil {
		return gofakes3.ObjectDeleteResult{}, gofakes3.BucketNotFound(bucket)
	}
	if o := b.objects[key]; o != nil {
		delete(b.objects, key)
		o.release()
	}
	return gofakes3.ObjectDeleteResult{}, nil
}

func (d *diskStore) DeleteMulti(bucket string, keys ...string) (gofakes3.MultiDeleteResult, error) {
	var res gofakes3.MultiDeleteResult
	for _, k := range keys {
		if _, err := d.DeleteObject(bucket, k); err != nil {
			res.Error = append(res.Error, gofakes3.ErrorResultFromError(err))
			continue
		}
		res.Deleted = append(res.Deleted, gofakes3.ObjectID{Key: k})
	}
	return res, nil
}

// store makes o the object at key (after the conditions hold), releasing
// the one it replaces; metadata not given again carries over, as gofakes3's
// memory backend does.
func (d *diskStore) store(bucket string, o *diskObject, cond *gofakes3.PutConditions) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buckets[bucket]
	if b == nil {
		return gofakes3.BucketNotFound(bucket)
	}
	old := b.objects[o.name]
	if cond != nil {
		info := &gofakes3.ConditionalObjectInfo{Exists: old != nil}
		if old != nil {
			info.Hash = old.hash
		}
		if err := gofakes3.CheckPutConditions(cond, info); err != nil {
			return err
		}
	}
	if old != nil {
		for k, v := range old.meta {
			if _, ok := o.meta[k]; !ok {
				o.meta[k] = v
			}
		}
		old.release()
	}
	o.refs.Store(1)
	b.objects[o.name] = o
	return nil
}

func (d *diskStore) PutObject(bucket, key string, meta map[string]string, input io.Reader, size int64, cond *gofakes3.PutConditions) (gofakes3.PutObjectResult, error) {
	if ok, _ := d.BucketExists(bucket); !ok {
		return gofakes3.PutObjectResult{}, gofakes3.BucketNotFound(bucket)
	}
	seg, sum, err := d.spool(input, size)
	if err != nil {
		return gofakes3.PutObjectResult{}, err
	}
	if meta == nil {
		meta = map[string]string{}
	}
	o := &diskObject{name: key, size: size, hash: sum, meta: meta, modified: time.Now(), segs: []segment{seg}}
	if err := d.store(bucket, o, cond); err != nil {
		_ = os.Remove(seg.path)
		return gofakes3.PutObjectResult{}, err
	}
	return gofakes3.PutObjectResult{}, nil
}

func (d *diskStore) CopyObject(srcBucket, srcKey, dstBucket, dstKey string, meta map[string]string) (gofakes3.CopyObjectResult, error) {
	return gofakes3.CopyObject(d, srcBucket, srcKey, dstBucket, dstKey, meta)
}

// Multipart uploads: each part a file; completing one makes the object
// its parts' files in order, with S3's multipart ETag (the MD5 of the
// parts' MD5s, a dash, the count) in the answer.

func (d *diskStore) CreateMultipartUpload(bucket, key string, meta map[string]string) (gofakes3.UploadID, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.buckets[bucket] == nil {
		return "", gofakes3.BucketNotFound(bucket)
	}
	id := gofakes3.UploadID(strconv.FormatInt(d.seq.Add(1), 10))
	d.uploads[id] = &diskUpload{bucket: bucket, object: key, meta: meta, initiated: time.Now(), parts: map[int]*diskPart{}}
	return id, nil
}

func (d *diskStore) upload(bucket, key string, id gofakes3.UploadID) (*diskUpload, error) {
	u := d.uploads[id]
	if u == nil || u.bucket != bucket || u.object != key {
		return nil, gofakes3.ErrNoSuchUpload
	}
	return u, nil
}

func (d *diskStore) UploadPart(bucket, key string, id gofakes3.UploadID, partNumber int, contentLength int64, input io.Reader) (string, error) {
	if partNumber > gofakes3.MaxUploadPartNumber {
		return "", gofakes3.ErrInvalidPart
	}
	d.mu.RLock()
	_, err := d.upload(bucket, key, id)
	d.mu.RUnlock()
	if err != nil {
		return "", err
	}
	seg, sum, err := d.spool(input, contentLength)
	if err != nil {
		return "", err
	}
	etag := `"` + hex.EncodeToString(sum) + `"`
	d.mu.Lock()
	defer d.mu.Unlock()
	u, err := d.upload(bucket, key, id)
	if err != nil {
		_ = os.Remove(seg.path)
		return "", err
	}
	if old := u.parts[partNumber]; old != nil {
		_ = os.Remove(old.seg.path)
	}
	u.parts[partNumber] = &diskPart{seg: seg, etag: etag, modified: time.Now()}
	return etag, nil
}

func (d *diskStore) ListMultipartUploads(bucket string, marker *gofakes3.UploadListMarker, prefix gofakes3.Prefix, limit int64) (*gofakes3.ListMultipartUploadsResult, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.buckets[bucket] == nil {
		return nil, gofakes3.BucketNotFound(bucket)
	}
	res := &gofakes3.ListMultipartUploadsResult{Bucket: bucket, MaxUploads: limit}
	var match gofakes3.PrefixMatch
	for id, u := range d.uploads {
		if u.bucket != bucket || !prefix.Match(u.object, &match) {
			continue
		}
		if marker != nil && (u.object < marker.Object || u.object == marker.Object && id <= marker.UploadID) {
			continue
		}
		res.Uploads = append(res.Uploads, gofakes3.ListMultipartUploadItem{Key: u.object, UploadID: id, Initiated: gofakes3.NewContentTime(u.initiated)})
	}
	sort.Slice(res.Uploads, func(i, j int) bool {
		a, b := res.Uploads[i], res.Uploads[j]
		return a.Key < b.Key || a.Key == b.Key && a.UploadID < b.UploadID
	})
	if limit > 0 && int64(len(res.Uploads)) > limit {
		res.Uploads = res.Uploads[:limit]
		res.IsTruncated = true
		last := res.Uploads[len(res.Uploads)-1]
		res.NextKeyMarker, res.NextUploadIDMarker = last.Key, last.UploadID
	}
	return res, nil
}

func (d *diskStore) ListParts(bucket, key string, id gofakes3.UploadID, marker int, limit int64) (*gofakes3.ListMultipartUploadPartsResult, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	u, err := d.upload(bucket, key, id)
	if err != nil {
		return nil, err
	}
	res := &gofakes3.ListMultipartUploadPartsResult{Bucket: bucket, Key: key, UploadID: id, PartNumberMarker: marker, MaxParts: limit}
	nums := make([]int, 0, len(u.parts))
	for n := range u.parts {
		if n > marker {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	for _, n := range nums {
		if limit > 0 && int64(len(res.Parts)) >= limit {
			res.IsTruncated = true
			break
		}
		p := u.parts[n]
		res.Parts = append(res.Parts, gofakes3.ListMultipartUploadPartItem{PartNumber: n, ETag: p.etag, Size: p.seg.size, LastModified: gofakes3.NewContentTime(p.modified)})
		res.NextPartNumberMarker = n
	}
	return res, nil
}

func (d *diskStore) AbortMultipartUpload(bucket, key string, id gofakes3.UploadID) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	u, err := d.upload(bucket, key, id)
	if err != nil {
		return err
	}
	for _, p := range u.parts {
		_ = os.Remove(p.seg.path)
	}
	delete(d.uploads, id)
	return nil
}

func (d *diskStore) CompleteMultipartUpload(bucket, key string, id gofakes3.UploadID, in *gofakes3.CompleteMultipartUploadRequest) (gofakes3.VersionID, string, error) {
	d.mu.Lock()
	u, err := d.upload(bucket, key, id)
	if err != nil {
		d.mu.Unlock()
		return "", "", err
	}
	o := &diskObject{name: key, meta: u.meta, modified: time.Now()}
	if o.meta == nil {
		o.meta = map[string]string{}
	}
	sums := md5.New()
	prev := 0
	for _, p := range in.Parts {
		part := u.parts[p.PartNumber]
		switch {
		case p.PartNumber <= prev:
			d.mu.Unlock()
			return "", "", gofakes3.ErrInvalidPartOrder
		case part == nil:
			d.mu.Unlock()
			return "", "", gofakes3.ErrorMessagef(gofakes3.ErrInvalidPart, "unexpected part number %d in complete request", p.PartNumber)
		case strings.Trim(p.ETag, `"`) != strings.Trim(part.etag, `"`):
			d.mu.Unlock()
			return "", "", gofakes3.ErrorMessagef(gofakes3.ErrInvalidPart, "unexpected part etag for number %d in complete request", p.PartNumber)
		}
		prev = p.PartNumber
		raw, _ := hex.DecodeString(strings.Trim(part.etag, `"`))
		sums.Write(raw)
		o.segs = append(o.segs, part.seg)
		o.size += part.seg.size
	}
	used := map[string]bool{}
	for _, s := range o.segs {
		used[s.path] = true
	}
	for _, p := range u.parts { // parts uploaded but left out
		if !used[p.seg.path] {
			_ = os.Remove(p.seg.path)
		}
	}
	delete(d.uploads, id)
	d.mu.Unlock()
	// S3 answers a multipart object's reads with the ETag its completion
	// gave (the MD5 of the parts' MD5s, and their count), not the whole
	// body's MD5: that would take a pass over every file.
	o.hash = sums.Sum(nil)
	o.etag = fmt.Sprintf(`"%s-%d"`, hex.EncodeToString(o.hash), len(in.Parts))
	if err := d.store(bucket, o, nil); err != nil {
		return "", "", err
	}
	return "", o.etag, nil
}

// eTag is the object's ETag as S3 lists and answers it.
func (o *diskObject) eTag() string {
	if o.etag != "" {
		return o.etag
	}
	return gofakes3.FormatETag(o.hash)
}

// answerMeta is the metadata gofakes3 writes as a read's headers: the
// object's, with the ETag it cannot form itself (a multipart object's)
// under etagHeader for s3Answers to put in place.
func (o *diskObject) answerMeta() map[string]string {
	if o.etag == "" {
		return o.meta
	}
	m := maps.Clone(o.meta)
	if m == nil {
		m = map[string]string{}
	}
	m[etagHeader] = o.etag
	return m
}

// segReader reads [off, end) of an object's segments, opening each file
// as the range reaches it.
type segReader struct {
	obj      *diskObject
	off, end int64
	f        *os.File
	fEnd     int64 // object offset where f's segment ends
	closed   bool
}

func (r *segReader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, os.ErrClosed
	}
	if r.off >= r.end {
		return 0, io.EOF
	}
	if r.f == nil || r.off >= r.fEnd {
		if r.f != nil {
			r.f.Close()
			r.f = nil
		}
		var base int64
		for _, s := range r.obj.segs {
			if r.off < base+s.size {
				f, err := os.Open(s.path)
				if err != nil {
					return 0, err
				}
				if _, err := f.Seek(r.off-base, io.SeekStart); err != nil {
					f.Close()
					return 0, err
				}
				r.f, r.fEnd = f, base+s.size
				break
			}
			base += s.size
		}
		if r.f == nil {
			return 0, errors.New("lab store: range beyond the object's files")
		}
	}
	if max := min(r.end, r.fEnd) - r.off; int64(len(p)) > max {
		p = p[:max]
	}
	n, err := r.f.Read(p)
	r.off += int64(n)
	if err == io.EOF {
		if r.off < r.fEnd {
			return n, io.ErrUnexpectedEOF
		}
		err = nil
	}
	return n, err
}

func (r *segReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.f != nil {
		r.f.Close()
	}
	r.obj.release()
	return nil
}
