/** The bundled conversation corpora and the chat requests each assistant turn was answering. */
package io.prefixlog.tools.corpus;
