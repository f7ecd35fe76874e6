#ifndef CARCHIVE_SHIM_H
#define CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

/* The AE_IF* file-type macros are casts, which Swift does not import. */
static const unsigned int CArchive_IFMT = AE_IFMT;
static const unsigned int CArchive_IFREG = AE_IFREG;
static const unsigned int CArchive_IFDIR = AE_IFDIR;
static const unsigned int CArchive_IFLNK = AE_IFLNK;
static const unsigned int CArchive_IFSOCK = AE_IFSOCK;
static const unsigned int CArchive_IFCHR = AE_IFCHR;
static const unsigned int CArchive_IFBLK = AE_IFBLK;
static const unsigned int CArchive_IFIFO = AE_IFIFO;

/* Linux only: gives the calling thread its own working directory, so archive_write_disk can be pointed at the
   extraction folder with relative names (which ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS requires) without
   changing the directory of every other thread. Declared here because glibc hides it behind _GNU_SOURCE. */
#if defined(__linux__)
extern int unshare(int flags);
static inline int CArchive_unshare_working_directory(void) {
    return unshare(0x00000200 /* CLONE_FS */);
}
#endif

#endif
