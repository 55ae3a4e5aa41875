// Package bundletest builds signed OPA bundles and serves them over HTTP on 127.0.0.1 for
// the tests of core/bundle/fetch, core/daemon and cmd/hookexec. Signatures are made by
// OPA's own signing code (bundle.GenerateSignedToken) over the digests OPA's hasher
// computes, as `opa build --signing-key` does, so that a test can also change a file after
// signing (tampering) or sign with another key.
package bundletest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	opabundle "github.com/open-policy-agent/opa/v1/bundle"
)

// Key is a signing key and the public half that verifies it, both PEM (HS*: the secret).
type Key struct {
	Alg     string
	Private string
	Public  string
}

// RSA makes an RS256 key pair.
func RSA(t testing.TB) Key {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return Key{Alg: "RS256", Private: pemOf("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(k)), Public: pemOf("PUBLIC KEY", pub)}
}

// EC makes an ES256 key pair.
func EC(t testing.TB) Key {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return Key{Alg: "ES256", Private: pemOf("EC PRIVATE KEY", priv), Public: pemOf("PUBLIC KEY", pub)}
}

// HMAC is an HS256 shared secret.
func HMAC(secret string) Key { return Key{Alg: "HS256", Private: secret, Public: secret} }

func pemOf(typ string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

// Files are a bundle's files by path ("hookexec/data.json", "policies/x.rego").
type Files map[string][]byte

// Settings is a bundle holding settings (a Claude Code settings object) at
// hookexec/data.json and a .manifest with the revision.
func Settings(t testing.TB, revision string, settings any) Files {
	t.Helper()
	data, err := json.Marshal(map[string]any{"settings": settings})
	if err != nil {
		t.Fatal(err)
	}
	man, err := json.Marshal(map[string]any{"revision": revision})
	if err != nil {
		t.Fatal(err)
	}
	return Files{"hookexec/data.json": data, ".manifest": man}
}

// Sign adds .signatures.json: a JWT over every file's digest, signed with key under keyID.
func Sign(t testing.TB, f Files, key Key, keyID string) Files {
	t.Helper()
	h, err := opabundle.NewSignatureHasher(opabundle.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	var infos []opabundle.FileInfo
	for _, name := range mapsKeys(f) {
		var v any = f[name]
		if opabundle.IsStructuredDoc(name) {
			if err := json.Unmarshal(f[name], &v); err != nil {
				t.Fatal(err)
			}
		}
		sum, err := h.HashFile(v)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, opabundle.NewFile(name, hex.EncodeToString(sum), string(opabundle.SHA256)))
	}
	token, err := opabundle.GenerateSignedToken(infos, opabundle.NewSigningConfig(key.Private, key.Alg, ""), keyID)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := json.Marshal(opabundle.SignaturesConfig{Signatures: []string{token}})
	out := Files{".signatures.json": sig}
	for k, v := range f {
		out[k] = v
	}
	return out
}

func mapsKeys(f Files) []string {
	var ks []string
	for k := range f {
		if k != ".signatures.json" {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// TarGz packs the files (sorted, each under "/").
func TarGz(t testing.TB, f Files) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(f))
	for k := range f {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := tw.WriteHeader(&tar.Header{Name: "/" + strings.TrimPrefix(name, "/"), Mode: 0o644, Size: int64(len(f[name])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Server serves one bundle at a time on 127.0.0.1 with a strong ETag (the body's digest),
// answering If-None-Match with 304. Down makes it answer 503.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	body     []byte
	etag     string
	down     bool
	Requests atomic.Int64 // every request
	NotMod   atomic.Int64 // 304 answers
	Auth     atomic.Pointer[string]
}

// Serve starts a server with no bundle (404 until Set).
func Serve(t testing.TB) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// URL of the bundle.
func (s *Server) BundleURL() string { return s.Server.URL + "/bundles/team.tar.gz" }

// Set serves body from now on.
func (s *Server) Set(body []byte) {
	sum := sha256.Sum256(body)
	s.mu.Lock()
	s.body, s.etag = body, `"`+hex.EncodeToString(sum[:8])+`"`
	s.mu.Unlock()
}

// Down makes the server answer 503 (true) or serve again (false).
func (s *Server) Down(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	s.mu.Lock()
	body, etag, down := s.body, s.etag, s.down
	s.mu.Unlock()
	if want := s.Auth.Load(); want != nil && r.Header.Get("Authorization") != *want {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	switch {
	case down:
		http.Error(w, "down", http.StatusServiceUnavailable)
	case r.URL.Path != "/bundles/team.tar.gz" || body == nil:
		http.NotFound(w, r)
	case r.Header.Get("If-None-Match") == etag:
		s.NotMod.Add(1)
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusNotModified)
	default:
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Type", "application/gzip")
		_, _ = w.Write(body)
	}
}
