package io.github.esrel.occ;

/**
 * A typed write was refused <em>before</em> anything was written, because it could not keep what the caller's class
 * does not map. esrel keeps every stored field that the class does not map (see {@link Occ}, "Fields your class does
 * not map"); inside an array it does so by matching the elements the function returned to the stored ones. When the
 * function changed an array whose stored elements hold such fields in a way that leaves them unmatched (elements
 * both replaced and added or removed, say), no element can be told to be whose, and writing would drop those
 * fields, or give them to another element. Map the elements' fields in the class (or keep them with
 * {@code @JsonAnySetter}/{@code @JsonAnyGetter}, or a {@code Map}), or change the array by editing, appending or
 * removing elements.
 *
 * <p>Not retried: another attempt would refuse again. {@link #field()} names the array.
 */
public class UnmappedFieldsException extends OccException {

    private static final long serialVersionUID = 1L;

    /** The path of the field that could not be kept. */
    private final String field;

    /**
     * Creates the exception.
     *
     * @param message what was refused, naming the document, the field and the fix
     * @param field the path of the field that could not be kept ({@code comments[2].likes}), not {@code null}
     */
    public UnmappedFieldsException(String message, String field) {
        super(message, 0, null);
        this.field = field;
    }

    /**
     * The field that could not be kept, as a path into the stored source: names joined by dots, array positions
     * in brackets ({@code comments[2].likes}).
     *
     * @return the path
     */
    public String field() {
        return field;
    }
}
