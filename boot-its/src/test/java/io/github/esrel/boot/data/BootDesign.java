package io.github.esrel.boot.data;

import java.time.Instant;
import org.springframework.data.annotation.Id;
import org.springframework.data.elasticsearch.annotations.DateFormat;
import org.springframework.data.elasticsearch.annotations.Document;
import org.springframework.data.elasticsearch.annotations.Field;
import org.springframework.data.elasticsearch.annotations.FieldType;
import org.springframework.data.elasticsearch.core.query.SeqNoPrimaryTerm;

/** Issue 29's entity: field names of its own, an epoch_millis date, Spring Data's optimistic locking property. */
// tag::entity[]
@Document(indexName = "boot-designs")
public class BootDesign {
    @Id
    private String id;

    @Field(name = "design_name", type = FieldType.Keyword)
    private String name;

    @Field(name = "vote_count", type = FieldType.Integer)
    private int votes;

    @Field(type = FieldType.Date, format = DateFormat.epoch_millis)
    private Instant created;

    private SeqNoPrimaryTerm seqNoPrimaryTerm;

    // hide::begin[]
    public BootDesign() {}

    public BootDesign(String id, String name, Instant created) {
        this.id = id;
        this.name = name;
        this.created = created;
    }

    // hide::end[]
    /** One more vote. */
    public BootDesign vote() {
        votes++;
        return this;
    }
    // hide::begin[]

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
    // hide::end[]
}
// end::entity[]
