package daemon

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// tcpEstablished is the kernel's TCP_ESTABLISHED, the state sock_diag reports as
// idiag_state and /proc/net/tcp as "01".
const tcpEstablished = 1

// ErrNotEstablished: the socket found is not an established connection with exactly the
// addresses asked for, so its uid says nothing about who sent what arrived. The kernel
// reports uid 0 for a connection in TIME_WAIT or FIN_WAIT2 after its owner closed it (a
// timewait mini-socket keeps no owner), and its exact lookup falls back to a socket
// listening on the peer's address when the connection is gone: neither may pass a uid check.
var ErrNotEstablished = errors.New("hookexec: the peer socket is not an established connection")

// sockDiagUID asks the kernel (netlink NETLINK_SOCK_DIAG, one exact 4-tuple lookup) for the
// uid owning the IPv4 TCP socket whose local address is local and remote address remote:
// microseconds, where a scan of /proc/net/tcp takes milliseconds on a busy machine. Only an
// established connection with exactly those addresses answers (ErrNotEstablished).
func sockDiagUID(local, remote netip.AddrPort) (int, error) {
	if !local.Addr().Unmap().Is4() || !remote.Addr().Unmap().Is4() {
		return -1, errors.New("hookexec: sock_diag: IPv4 only")
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return -1, err
	}
	defer unix.Close(fd)
	// struct nlmsghdr (16) + struct inet_diag_req_v2 (56).
	const reqLen = 16 + 56
	req := make([]byte, reqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], reqLen)
	ne.PutUint16(req[4:], 20) // SOCK_DIAG_BY_FAMILY
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	r := req[16:]
	r[0] = unix.AF_INET
	r[1] = unix.IPPROTO_TCP
	ne.PutUint32(r[4:], 0xffffffff) // every state
	// struct inet_diag_sockid at r[8:]: ports and addresses in network order.
	binary.BigEndian.PutUint16(r[8:], local.Port())
	binary.BigEndian.PutUint16(r[10:], remote.Port())
	l4, r4 := local.Addr().Unmap().As4(), remote.Addr().Unmap().As4()
	copy(r[12:], l4[:])
	copy(r[28:], r4[:])
	ne.PutUint32(r[48:], 0xffffffff) // INET_DIAG_NOCOOKIE
	ne.PutUint32(r[52:], 0xffffffff)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return -1, err
	}
	buf := make([]byte, 8192)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return -1, err
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil {
		return -1, err
	}
	for _, m := range msgs {
		switch m.Header.Type {
		case unix.NLMSG_ERROR:
			return -1, ErrNoSocket
		case 20:
			// struct inet_diag_msg: family, state, timer, retrans (4), id (48), expires,
			// rqueue, wqueue, uid, inode.
			if len(m.Data) < 4+48+16 {
				return -1, errors.New("hookexec: sock_diag: short answer")
			}
			// The socket found must be the one asked for (the lookup falls back to a
			// listener on the peer's address) and still an established connection.
			if m.Data[0] != unix.AF_INET || m.Data[1] != tcpEstablished || !bytes.Equal(m.Data[4:8], r[8:12]) ||
				!bytes.Equal(m.Data[8:12], r[12:16]) || !bytes.Equal(m.Data[24:28], r[28:32]) {
				return -1, ErrNotEstablished
			}
			return int(ne.Uint32(m.Data[4+48+12:])), nil
		}
	}
	return -1, ErrNoSocket
}
