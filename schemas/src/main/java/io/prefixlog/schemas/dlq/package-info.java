/** The dead letter: a bad input kept whole, with where it came from and why it was rejected. */
package io.prefixlog.schemas.dlq;
