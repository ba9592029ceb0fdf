package io.github.esrel.plugin.lock.action;

import java.io.IOException;
import java.util.Objects;
import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.jspecify.annotations.Nullable;

/** The {@link OverrideTreeLockBindingAction} question, naming the request it is asked for (for audit logs). */
public final class OverrideTreeLockBindingRequest extends ActionRequest {

    private final String description;

    /**
     * Creates the question.
     *
     * @param description the request that met a grant bound to another user, as its task describes it
     */
    public OverrideTreeLockBindingRequest(String description) {
        this.description = Objects.requireNonNull(description, "description cannot be null");
    }

    /**
     * Reads a request sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public OverrideTreeLockBindingRequest(StreamInput in) throws IOException {
        super(in);
        description = in.readString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeString(description);
    }

    @Override
    public @Nullable ActionRequestValidationException validate() {
        return null;
    }

    @Override
    public String getDescription() {
        return "override the user binding to " + description;
    }
}
