package client

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is how a client takes the config from its server, the one
// reader of the file while it runs: the Remote asks for it at each
// connection (_acpmux/config) and hears each change (_acpmux/configChanged),
// keeping the newest; the TUI offers the harnesses and heads the hosts it
// names, and the Router dials the hosts it names.

// remoteConfig is what a Remote holds of its server's config; r.mu guards
// it.
type remoteConfig struct {
	// follow is set by FollowConfig: only then is the config asked for
	// and heard (a host's Remote has no use for its host's config).
	follow bool
	// epoch counts the connections adopted; last is the newest config
	// heard, of connection lastEpoch. A server's generations count from
	// its start, so they compare only within one connection.
	epoch, lastEpoch uint64
	last             *proto.ConfigResult
	// changed signals a config newer than the last (at most one waits).
	changed chan struct{}
}

// FollowConfig has the Remote take its server's config: asked for now (if
// connected) and at each connection, and heard at each change.
// ConfigChanged signals each one, and Config says what it is.
func (r *Remote) FollowConfig() {
	r.mu.Lock()
	r.cfg.follow = true
	c, epoch := r.c, r.cfg.epoch
	connected := c != nil && r.ready && r.lost == nil
	r.mu.Unlock()
	if connected {
		go r.fetchConfig(c, epoch)
	}
}

// configAdopted notes a new connection; r.mu is held. It returns whether
// the config is to be asked for on it, and the connection's epoch.
func (r *Remote) configAdopted() (fetch bool, epoch uint64) {
	r.cfg.epoch++
	return r.cfg.follow, r.cfg.epoch
}

// fetchConfig asks the server of connection c (of epoch) for its config.
// A server that does not know the call (an older one still running) leaves
// the client with what it read itself at its start.
func (r *Remote) fetchConfig(c *Conn, epoch uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), PullTimeout)
	defer cancel()
	var res proto.ConfigResult
	if err := c.Call(ctx, proto.MethodConfig, struct{}{}, &res); err != nil {
		return // a connection lost meanwhile asks again when it is back
	}
	r.takeConfig(epoch, res)
}

// ReadConfig has the server read its config file again and answers what
// is in effect then (a refusal is told as news, and in Refused).
func (r *Remote) ReadConfig() (proto.ConfigResult, error) {
	r.mu.Lock()
	epoch := r.cfg.epoch
	r.mu.Unlock()
	var res proto.ConfigResult
	if err := r.call(proto.MethodConfig, struct{}{}, &res); err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) && rpc.Code == proto.CodeMethodNotFound {
			return res, errors.New("the server is older than this acpmux-tui and does not tell its config: kill-server and start it again")
		}
		return res, err
	}
	r.takeConfig(epoch, res)
	return res, nil
}

// heardConfig takes a config the server told of (NotifyConfigChanged).
func (r *Remote) heardConfig(params json.RawMessage) {
	r.mu.Lock()
	follow, epoch := r.cfg.follow, r.cfg.epoch
	r.mu.Unlock()
	var res proto.ConfigResult
	if !follow || json.Unmarshal(params, &res) != nil {
		return
	}
	r.takeConfig(epoch, res)
}

// takeConfig keeps res unless a newer config was heard, and signals it.
func (r *Remote) takeConfig(epoch uint64, res proto.ConfigResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.cfg.follow || epoch < r.cfg.lastEpoch ||
		epoch == r.cfg.lastEpoch && r.cfg.last != nil && res.Generation < r.cfg.last.Generation {
		return
	}
	r.cfg.last, r.cfg.lastEpoch = &res, epoch
	select {
	case r.cfg.changed <- struct{}{}:
	default:
	}
}

// Config is the server's config as last heard; false before any.
func (r *Remote) Config() (proto.ConfigResult, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg.last == nil {
		return proto.ConfigResult{}, false
	}
	return *r.cfg.last, true
}

// ConfigChanged signals each config heard (at most one waits); Config says
// what it is.
func (r *Remote) ConfigChanged() <-chan struct{} { return r.cfg.changed }

// HostsOf is the hosts a config names, in its order.
func HostsOf(cfg proto.ConfigResult) []Host {
	out := make([]Host, 0, len(cfg.Hosts))
	for _, h := range cfg.Hosts {
		out = append(out, Host{Name: h.Name, HostConfig: config.HostConfig{
			SSH: h.SSH, SSHOptions: slices.Clone(h.SSHOptions), Home: h.Home, Command: h.Command, Budget: h.Budget}})
	}
	return out
}

// sameHost reports whether two hosts are reached the same way.
func sameHost(a, b Host) bool {
	return a.Name == b.Name && a.SSH == b.SSH && slices.Equal(a.SSHOptions, b.SSHOptions) &&
		a.Home == b.Home && a.Command == b.Command && a.Budget == b.Budget
}
