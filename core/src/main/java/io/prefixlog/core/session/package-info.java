/**
 * Session keys (docs/design.md#session-keys): which signal identifies a session, and its keyed
 * hash.
 */
package io.prefixlog.core.session;
