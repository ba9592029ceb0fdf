/**
 * How the body parsers of both capabilities name a token in a parse error.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/installing-the-plugin.md">Installing the plugin</a>.
 */
@NullMarked
package io.github.esrel.plugin.xcontent;

import org.jspecify.annotations.NullMarked;
