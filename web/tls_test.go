package web

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/wsclient"
)

// selfSigned writes a certificate for 127.0.0.1 and localhost and its key
// to dir, and returns their paths and a pool that trusts it.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "acpmux web test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	r := newRig(t, func(o *Options) { o.TLSCert, o.TLSKey = certFile, keyFile })
	if !strings.HasPrefix(r.ln.URL(), "https://127.0.0.1:") {
		t.Fatalf("URL() = %q, want https", r.ln.URL())
	}
	d := wsclient.Dialer{TLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}}
	own := "https://" + r.host()

	h := r.bearer()
	h.Set("Origin", own)
	c, ref, err := d.Dial(r.ln.Addr(), "/acp", h, r.host())
	if err != nil || ref != nil {
		t.Fatalf("upgrade over TLS: refused %v, err %v", ref, err)
	}
	roundTrip(t, c, `{"over":"tls"}`)
	c.Close()

	h.Set("Origin", "http://"+r.host())
	if _, ref, err := d.Dial(r.ln.Addr(), "/acp", h, r.host()); err != nil || ref == nil || ref.Status != http.StatusForbidden {
		t.Fatalf("the plain-HTTP origin over TLS: refused %v, err %v; want 403", ref, err)
	}

	status, header, _, err := d.Do(r.ln.Addr(), "POST", "/session", http.Header{"Origin": {own}}, r.host(), `{"token":"`+r.token()+`"}`)
	if err != nil || status != http.StatusNoContent {
		t.Fatalf("sign-in over TLS: %d %v", status, err)
	}
	cookie, err := http.ParseSetCookie(header.Get("Set-Cookie"))
	if err != nil || !cookie.Secure || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("the cookie over TLS is %q, want Secure, HttpOnly, SameSite=Strict", header.Get("Set-Cookie"))
	}
	checkPageHeaders(t, "sign-in over TLS", header, true)

	old := wsclient.Dialer{TLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MaxVersion: tls.VersionTLS11}}
	if _, _, err := old.Dial(r.ln.Addr(), "/acp", r.bearer(), r.host()); err == nil {
		t.Fatalf("a TLS 1.1 client got through")
	}
}

// TestOpenRefusesOffLoopbackWithoutTLS checks Open binds nothing off
// loopback unless it speaks TLS, and says which settings to make.
func TestOpenRefusesOffLoopbackWithoutTLS(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", "[::]:0", ":0", "10.1.2.3:7433", "box.example:7433"} {
		_, err := Open(Options{Listen: listen, TokenFile: filepath.Join(t.TempDir(), "web.token"), Serve: func(net.Conn) {}})
		if err == nil || !strings.Contains(err.Error(), "[web] tls_cert") || !strings.Contains(err.Error(), "tls_key") {
			t.Fatalf("Open(%q) without TLS: %v, want a refusal naming [web] tls_cert and tls_key", listen, err)
		}
	}
	certFile, _, _ := selfSigned(t, t.TempDir())
	if _, err := Open(Options{TLSCert: certFile, TokenFile: filepath.Join(t.TempDir(), "web.token"), Serve: func(net.Conn) {}}); err == nil {
		t.Fatalf("Open with tls_cert and no tls_key got through")
	}
	if _, err := Open(Options{TLSCert: certFile, TLSKey: certFile, TokenFile: filepath.Join(t.TempDir(), "web.token"), Serve: func(net.Conn) {}}); err == nil {
		t.Fatalf("Open with a certificate as its own key got through")
	}
}
