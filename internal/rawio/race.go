//go:build race

package rawio

import "sync/atomic"

// ioSync stands for the world outside the process under the race
// detector, as it does in os.File's reads and writes: a write releases it
// and a read acquires it, so what a goroutine did before it wrote a line
// to an agent happens before what one does after it read the agent's
// reply. Bare system calls bypass those annotations of the runtime's
// poller; without these, the detector would see races that the exchange
// itself orders.
var ioSync atomic.Uint64

func ioRelease() { ioSync.Add(1) }

func ioAcquire() { ioSync.Load() }

// raceEnabled is set in race builds, where sync.Pool keeps nothing for
// sure.
const raceEnabled = true
