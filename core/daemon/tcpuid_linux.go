package daemon

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// ErrNoSocket: /proc/net/tcp{,6} lists no socket with those addresses.
var ErrNoSocket = errors.New("hookexec: no such socket")

// tcpUID is the uid that owns the TCP socket whose local address is local and whose remote
// address is remote (the zero AddrPort: a listening socket; otherwise only an established
// connection answers, ErrNotEstablished), as the kernel lists it in
// /proc/net/tcp and /proc/net/tcp6 (an IPv4 address is also looked for in its IPv4-mapped
// IPv6 form). For a loopback connection both ends are on this machine, so the daemon can
// see which user's process opened the other end.
func tcpUID(local, remote netip.AddrPort) (int, error) {
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		uid, err := tcpUIDIn(file, local, remote)
		if err == nil || !errors.Is(err, ErrNoSocket) {
			return uid, err
		}
	}
	return -1, fmt.Errorf("%w: %s → %s", ErrNoSocket, local, remote)
}

func tcpUIDIn(file string, local, remote netip.AddrPort) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	six := strings.HasSuffix(file, "6")
	wantLocal, wantRemote := procAddr(local, six), procAddr(remote, six)
	listen := !remote.IsValid()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || fields[1] != wantLocal {
			continue
		}
		if listen && fields[3] != "0A" || !listen && fields[2] != wantRemote {
			continue
		}
		if !listen && fields[3] != "01" {
			// Not ESTABLISHED: a closed connection's row (TIME_WAIT, FIN_WAIT2) shows uid 0.
			return -1, fmt.Errorf("%w: state %s", ErrNotEstablished, fields[3])
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			return -1, fmt.Errorf("hookexec: %s: a uid that is not a number: %q", file, fields[7])
		}
		return uid, nil
	}
	if err := sc.Err(); err != nil {
		return -1, err
	}
	return -1, ErrNoSocket
}

// procAddr spells an address as /proc/net/tcp does: the address's 32-bit words in host
// (little-endian) order, in hex, a colon, the port in hex. The zero AddrPort is the
// unspecified address and port 0 (a listening socket's remote).
func procAddr(ap netip.AddrPort, six bool) string {
	var raw []byte
	switch {
	case !ap.IsValid() && six:
		raw = make([]byte, 16)
	case !ap.IsValid():
		raw = make([]byte, 4)
	case six:
		a16 := ap.Addr().As16()
		raw = a16[:]
	default:
		a4 := ap.Addr().Unmap().As4()
		raw = a4[:]
	}
	words := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.LittleEndian.PutUint32(words[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	port := uint16(0)
	if ap.IsValid() {
		port = ap.Port()
	}
	return strings.ToUpper(hex.EncodeToString(words)) + fmt.Sprintf(":%04X", port)
}

// ListenerUID is the uid owning the socket listening on 127.0.0.1:port (ErrNoSocket when
// none listens). A client checks it before trusting what answers on the port.
func ListenerUID(port int) (int, error) {
	return tcpUID(netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(port)), netip.AddrPort{})
}
