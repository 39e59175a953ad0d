// Package router wires the bus.
package router

import _ "example.com/violation/handlers"
