#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H

/* Debian's libxml2 is built with ICU; its ICU types clash with Foundation's, and shelf does not use them. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/uri.h>

/* xmlFree is a global function pointer, which Swift 6 rejects as shared mutable state. */
static inline void CLibXML2_free(void *pointer) { xmlFree(pointer); }

#endif
