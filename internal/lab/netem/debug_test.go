package netem

import "fmt"

func (n *Network) debug() string {
	s := n.server.Stats().TCP
	c := n.client.Stats()
	return fmt.Sprintf("srv retrans %d fastrec %d sackrec %d tlp %d rto %d spurious %d; cli rcvbufoverflow %d tcprecv-invalid %d dropped %d",
		s.Retransmits.Value(), s.FastRecovery.Value(), s.SACKRecovery.Value(), s.TLPRecovery.Value(), s.Timeouts.Value(), s.SpuriousRecovery.Value(),
		c.TCP.InvalidSegmentsReceived.Value(), c.DroppedPackets.Value(), c.NICs.Rx.Packets.Value())
}
