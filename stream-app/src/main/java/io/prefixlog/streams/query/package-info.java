/** Interactive queries: a session's live state, read from the instance that holds it. */
package io.prefixlog.streams.query;
