// Package azure is the storage.Backend for Azure Blob Storage (and Azurite),
// built on azblob with the caller's instrumented client as its transport.
package azure

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/objbench/objbench/internal/storage"
)

// Backend is one Azure container.
type Backend struct {
	container *container.Client
	upload    storage.UploadStyle
	partSize  int64
	parts     int
}

var _ storage.Backend = (*Backend)(nil)

// New returns a client of container t.Bucket in account t.Account.
// Credentials, in order: AZURE_STORAGE_CONNECTION_STRING, a shared key in
// AZURE_STORAGE_KEY, then azidentity's DefaultAzureCredential.
func New(ctx context.Context, t storage.Target, o storage.Options) (*Backend, error) {
	if o.HTTPClient == nil {
		return nil, errors.New("azure: no HTTP client")
	}
	opts := &azblob.ClientOptions{ClientOptions: policy.ClientOptions{Transport: o.HTTPClient}}
	switch {
	case o.MaxAttempts == 1:
		opts.Retry.MaxRetries = -1
	case o.MaxAttempts > 1:
		opts.Retry.MaxRetries = int32(o.MaxAttempts - 1)
	}
	serviceURL := "https://" + t.Account + ".blob.core.windows.net/"
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("bad endpoint %q: use http://host:port/account for Azurite", o.Endpoint)
		}
		serviceURL = strings.TrimSuffix(o.Endpoint, "/") + "/"
	}
	var (
		client *azblob.Client
		err    error
	)
	switch cs, key := os.Getenv("AZURE_STORAGE_CONNECTION_STRING"), os.Getenv("AZURE_STORAGE_KEY"); {
	case o.Credentials != nil: // the lab's Azurite: account name and key
		cred, err := azblob.NewSharedKeyCredential(o.Credentials.AccessKeyID, o.Credentials.SecretAccessKey)
		if err != nil {
			return nil, errors.New("azure: bad explicit account key")
		}
		if client, err = azblob.NewClientWithSharedKeyCredential(serviceURL, cred, opts); err != nil {
			return nil, fmt.Errorf("azure client: %w", err)
		}
	case cs != "":
		client, err = azblob.NewClientFromConnectionString(cs, opts)
		if err != nil {
			return nil, fmt.Errorf("AZURE_STORAGE_CONNECTION_STRING is malformed: %s", redact(err.Error(), cs))
		}
	case key != "":
		if _, derr := base64.StdEncoding.DecodeString(key); derr != nil {
			return nil, errors.New("AZURE_STORAGE_KEY is not a valid account key (base64)")
		}
		cred, err := azblob.NewSharedKeyCredential(t.Account, key)
		if err != nil {
			return nil, fmt.Errorf("AZURE_STORAGE_KEY: %s", redact(err.Error(), key))
		}
		client, err = azblob.NewClientWithSharedKeyCredential(serviceURL, cred, opts)
		if err != nil {
			return nil, fmt.Errorf("azure client: %w", err)
		}
	default:
		cred, err := azidentity.NewDefaultAzureCredential(nil)
		if err != nil {
			return nil, &storage.Error{Op: "credentials", Class: storage.ClassAccessDenied,
				Err: errors.New("no Azure credentials found: set AZURE_STORAGE_CONNECTION_STRING or AZURE_STORAGE_KEY, or sign in with 'az login'")}
		}
		client, err = azblob.NewClient(serviceURL, cred, opts)
		if err != nil {
			return nil, fmt.Errorf("azure client: %w", err)
		}
	}
	parts := o.PartConcurrency
	if parts <= 0 {
		parts = 5
	}
	partSize := o.PartSize
	if partSize <= 0 {
		partSize = 8 << 20
	}
	return &Backend{container: client.ServiceClient().NewContainerClient(t.Bucket), upload: o.Upload, partSize: partSize, parts: parts}, nil
}

// redact removes a secret from a message.
func redact(msg, secret string) string {
	if secret == "" {
		return msg
	}
	return strings.ReplaceAll(msg, secret, "[redacted]")
}

// Put implements storage.Backend: auto is azblob's UploadStream (blocks as
// the SDK chooses), single one Put Blob, multipart staged blocks then a
// commit.
func (b *Backend) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	bb := b.container.NewBlockBlobClient(key)
	var err error
	switch b.upload {
	case storage.UploadSingle:
		_, err = bb.Upload(ctx, streaming.NopCloser(body), nil)
	case storage.UploadMultipart:
		err = b.putBlocks(ctx, bb, body, size)
	case storage.UploadResumable:
		return &storage.Error{Op: "put", Key: key, Class: storage.ClassClient,
			Err: errors.New("no resumable upload on Azure: use --upload auto, single or multipart")}
	default:
		_, err = bb.UploadStream(ctx, body, nil)
	}
	return mapErr("put", key, err)
}

// putBlocks stages parts of partSize, parts at a time, and commits them.
func (b *Backend) putBlocks(ctx context.Context, bb *blockblob.Client, body io.ReadSeeker, size int64) error {
	n := max((size+b.partSize-1)/b.partSize, 1)
	ids := make([]string, n)
	for i := range ids {
		id := make([]byte, 8)
		binary.BigEndian.PutUint64(id, uint64(i))
		ids[i] = base64.StdEncoding.EncodeToString(id)
	}
	err := storage.UploadParts(ctx, body, size, b.partSize, b.parts, func(ctx context.Context, i int, part *io.SectionReader) error {
		_, err := bb.StageBlock(ctx, ids[i], streaming.NopCloser(part), nil)
		return err
	})
	if err != nil {
		return err
	}
	_, err = bb.CommitBlockList(ctx, ids, nil)
	return err
}

// Get implements storage.Backend, reading the body to its end.
func (b *Backend) Get(ctx context.Context, key string, w io.Writer) (int64, error) {
	resp, err := b.container.NewBlobClient(key).DownloadStream(ctx, nil)
	if err != nil {
		return 0, mapErr("get", key, err)
	}
	defer resp.Body.Close()
	n, err := storage.CopyBody(w, resp.Body)
	if err != nil {
		return n, &storage.Error{Op: "get", Key: key, Err: fmt.Errorf("reading body after %d bytes: %w", n, err)}
	}
	return n, nil
}

// GetRange implements storage.RangeGetter with a ranged download.
func (b *Backend) GetRange(ctx context.Context, key string, off, n int64, w io.Writer) (int64, error) {
	resp, err := b.container.NewBlobClient(key).DownloadStream(ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: off, Count: n}})
	if err != nil {
		return 0, mapErr("get", key, err)
	}
	defer resp.Body.Close()
	got, err := storage.CopyBody(w, resp.Body)
	if err != nil {
		return got, &storage.Error{Op: "get", Key: key, Err: fmt.Errorf("reading range at %d after %d bytes: %w", off, got, err)}
	}
	return got, nil
}

// Head implements storage.Backend.
func (b *Backend) Head(ctx context.Context, key string) (storage.ObjectInfo, error) {
	p, err := b.container.NewBlobClient(key).GetProperties(ctx, nil)
	if err != nil {
		return storage.ObjectInfo{}, mapErr("head", key, err)
	}
	info := storage.ObjectInfo{Key: key}
	if p.ContentLength != nil {
		info.Size = *p.ContentLength
	}
	if p.LastModified != nil {
		info.Modified = *p.LastModified
	}
	if p.ETag != nil {
		info.ETag = string(*p.ETag)
	}
	return info, nil
}

// List implements storage.Backend.
func (b *Backend) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	pager := b.container.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &prefix})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return mapErr("list", prefix, err)
		}
		for _, item := range page.Segment.BlobItems {
			info := storage.ObjectInfo{}
			if item.Name != nil {
				info.Key = *item.Name
			}
			if p := item.Properties; p != nil {
				if p.ContentLength != nil {
					info.Size = *p.ContentLength
				}
				if p.LastModified != nil {
					info.Modified = *p.LastModified
				}
			}
			if err := fn(info); err != nil {
				return err
			}
		}
	}
	return nil
}

// Delete implements storage.Backend; a missing blob is not an error.
func (b *Backend) Delete(ctx context.Context, key string) error {
	_, err := b.container.NewBlobClient(key).Delete(ctx, nil)
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.ErrorCode == "BlobNotFound" {
		return nil
	}
	return mapErr("delete", key, err)
}

// BucketExists implements storage.Backend.
func (b *Backend) BucketExists(ctx context.Context) (bool, error) {
	_, err := b.container.GetProperties(ctx, nil)
	if err == nil {
		return true, nil
	}
	err = mapErr("head container", "", err)
	var se *storage.Error
	if errors.As(err, &se) && se.Status == 404 {
		return false, nil
	}
	return false, err
}

// CreateBucket implements storage.Backend.
func (b *Backend) CreateBucket(ctx context.Context) error {
	_, err := b.container.Create(ctx, nil)
	return mapErr("create container", "", err)
}

// Close implements storage.Backend.
func (b *Backend) Close() error { return nil }

func mapErr(op, key string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	e := &storage.Error{Op: op, Key: key, Err: err}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		e.Status, e.Code = re.StatusCode, re.ErrorCode
		switch re.ErrorCode {
		case "BlobNotFound", "ContainerNotFound":
			e.Class = storage.ClassNotFound
		case "AuthenticationFailed", "AuthorizationFailure", "AuthorizationPermissionMismatch", "InvalidAuthenticationInfo":
			e.Class = storage.ClassAccessDenied
		case "ServerBusy", "OperationTimedOut":
			e.Class = storage.ClassThrottled
		default:
			e.Class = storage.ClassifyStatus(re.StatusCode, re.ErrorCode)
		}
	}
	return e
}
