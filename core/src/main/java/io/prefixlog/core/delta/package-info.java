/** The lossless copy/insert delta codec between turns of a session. */
package io.prefixlog.core.delta;
