/** Byte, UTF-8 and digest helpers that the codecs build on. */
package io.prefixlog.core.text;
