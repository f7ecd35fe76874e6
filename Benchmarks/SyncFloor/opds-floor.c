// The floor Benchmarks/sync.sh measures `shelf sync` against: libxml2's xmlTextReader over the same OPDS 1 pages,
// saved to files, touching only what a sync cannot do without: each entry's id and updated, and the rel, href and
// type of each of its links. No model, no store. Prints "ENTRIES LINKS CPU_SECONDS".
// Usage: opds-floor PAGE.xml...
#include <libxml/xmlreader.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static size_t touch(xmlChar *value) {
    size_t length = value ? strlen((const char *)value) : 0;
    xmlFree(value);
    return length;
}

int main(int argc, char **argv) {
    long entries = 0, links = 0;
    size_t touched = 0;
    for (int i = 1; i < argc; i++) {
        xmlTextReaderPtr reader = xmlReaderForFile(argv[i], NULL, XML_PARSE_NONET | XML_PARSE_COMPACT);
        if (!reader) {
            fprintf(stderr, "opds-floor: cannot read %s\n", argv[i]);
            return 1;
        }
        int inEntry = 0, wanted = 0;
        int result;
        while ((result = xmlTextReaderRead(reader)) == 1) {
            int type = xmlTextReaderNodeType(reader);
            const char *name = (const char *)xmlTextReaderConstLocalName(reader);
            if (type == XML_READER_TYPE_ELEMENT) {
                if (strcmp(name, "entry") == 0) {
                    inEntry = 1;
                    entries++;
                } else if (inEntry && (strcmp(name, "id") == 0 || strcmp(name, "updated") == 0)) {
                    wanted = 1;
                } else if (inEntry && strcmp(name, "link") == 0) {
                    links++;
                    touched += touch(xmlTextReaderGetAttribute(reader, BAD_CAST "rel"));
                    touched += touch(xmlTextReaderGetAttribute(reader, BAD_CAST "href"));
                    touched += touch(xmlTextReaderGetAttribute(reader, BAD_CAST "type"));
                }
            } else if (type == XML_READER_TYPE_TEXT && wanted) {
                touched += strlen((const char *)xmlTextReaderConstValue(reader));
                wanted = 0;
            } else if (type == XML_READER_TYPE_END_ELEMENT) {
                if (strcmp(name, "entry") == 0) inEntry = 0;
                wanted = 0;
            }
        }
        xmlFreeTextReader(reader);
        if (result != 0) {
            fprintf(stderr, "opds-floor: %s is not well-formed XML\n", argv[i]);
            return 1;
        }
    }
    struct timespec cpu;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    // `touched` keeps the reads from being optimised away.
    printf("%ld %ld %.3f %zu\n", entries, links, cpu.tv_sec + cpu.tv_nsec / 1e9, touched);
    return 0;
}
