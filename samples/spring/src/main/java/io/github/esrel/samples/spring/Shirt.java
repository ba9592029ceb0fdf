package io.github.esrel.samples.spring;

import java.time.Instant;
import org.springframework.data.annotation.Id;
import org.springframework.data.elasticsearch.annotations.DateFormat;
import org.springframework.data.elasticsearch.annotations.Document;
import org.springframework.data.elasticsearch.annotations.Field;
import org.springframework.data.elasticsearch.annotations.FieldType;
import org.springframework.data.elasticsearch.core.query.SeqNoPrimaryTerm;

/** A Spring Data Elasticsearch entity: its own field names, an epoch_millis date, Spring Data's version property. */
@Document(indexName = "spring-shirts")
public class Shirt {
    @Id
    private String id;

    @Field(name = "design_name", type = FieldType.Keyword)
    private String name;

    @Field(name = "vote_count", type = FieldType.Integer)
    private int votes;

    @Field(type = FieldType.Date, format = DateFormat.epoch_millis)
    private Instant created;

    private SeqNoPrimaryTerm seqNoPrimaryTerm;

    /** For Spring Data. */
    public Shirt() {}

    Shirt(String id, String name, Instant created) {
        this.id = id;
        this.name = name;
        this.created = created;
    }

    Shirt vote() {
        votes++;
        return this;
    }

    public String getId() {
        return id;
    }

    public void setId(String id) {
        this.id = id;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public int getVotes() {
        return votes;
    }

    public void setVotes(int votes) {
        this.votes = votes;
    }

    public Instant getCreated() {
        return created;
    }

    public void setCreated(Instant created) {
        this.created = created;
    }

    public SeqNoPrimaryTerm getSeqNoPrimaryTerm() {
        return seqNoPrimaryTerm;
    }

    public void setSeqNoPrimaryTerm(SeqNoPrimaryTerm seqNoPrimaryTerm) {
        this.seqNoPrimaryTerm = seqNoPrimaryTerm;
    }
}
