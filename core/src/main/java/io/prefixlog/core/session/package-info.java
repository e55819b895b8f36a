/** Session keys (DESIGN §5): which signal identifies a session, and its keyed hash. */
package io.prefixlog.core.session;
