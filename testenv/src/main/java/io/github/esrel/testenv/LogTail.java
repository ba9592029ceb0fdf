package io.github.esrel.testenv;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The last lines of a log file, for error messages. */
final class LogTail {

    /** Enough for 60 long lines (stack traces) without reading a long test's whole log. */
    private static final int MAX_BYTES = 64 * 1024;

    private LogTail() {}

    /** The last {@code lines} lines of {@code file}, or "" if it does not exist or is unreadable. */
    static String of(Path file, int lines) {
        if (file == null || !Files.isRegularFile(file)) {
            return "";
        }
        try (SeekableByteChannel channel = Files.newByteChannel(file)) {
            long size = channel.size();
            int length = (int) Math.min(size, MAX_BYTES);
            ByteBuffer buffer = ByteBuffer.allocate(length);
            channel.position(size - length);
            while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                // read until full
            }
            String text = new String(buffer.array(), StandardCharsets.UTF_8);
            if (length < size) {
                text = text.substring(text.indexOf('\n') + 1); // the first line is cut
            }
            return lastLines(text, lines);
        } catch (IOException e) {
            return "";
        }
    }

    /** The last {@code lines} lines of {@code text}. */
    static String lastLines(String text, int lines) {
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
}
