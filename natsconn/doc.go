// Package natsconn owns how agentgate connects to NATS: the options every
// command accepts (the nats CLI's --server, --creds, --nkey, --user and
// --password, --token, --tlscert, --tlskey, --tlsca, --tlsfirst and
// --context, plus NATS_URL and the other NATS_* variables), how they are
// resolved into nats.go options (through github.com/nats-io/jsm.go's
// natscontext, the reader of the nats CLI's context files), and connect
// errors that name the server, the credential and the reason.
//
// It knows nothing of agentgate's subjects, streams or pipeline, and must
// never import another agentgate package.
package natsconn
