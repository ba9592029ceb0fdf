package io.github.esrel.spring.data;

import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.Version;
import org.springframework.data.elasticsearch.annotations.Document;
import org.springframework.data.elasticsearch.annotations.Field;
import org.springframework.data.elasticsearch.annotations.FieldType;
import org.springframework.data.elasticsearch.annotations.Routing;

/** A routed entity with a {@code @Version}: the tenant routes it. */
@Document(indexName = "notes")
@Routing("tenant")
public class Note {
    @Id
    private String id;

    @Field(type = FieldType.Keyword)
    private String tenant;

    @Field(name = "note_text", type = FieldType.Text)
    private String text;

    @Version
    private Long version;

    public Note() {}

    public Note(String id, String tenant, String text) {
        this.id = id;
        this.tenant = tenant;
        this.text = text;
    }

    public String getId() {
        return id;
    }

    public void setId(String id) {
        this.id = id;
    }

    public String getTenant() {
        return tenant;
    }

    public void setTenant(String tenant) {
        this.tenant = tenant;
    }

    public String getText() {
        return text;
    }

    public void setText(String text) {
        this.text = text;
    }

    public Long getVersion() {
        return version;
    }

    public void setVersion(Long version) {
        this.version = version;
    }
}
