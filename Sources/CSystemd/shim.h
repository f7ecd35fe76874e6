#ifndef SHELF_CSYSTEMD_SHIM_H
#define SHELF_CSYSTEMD_SHIM_H
// sd-bus, for the player's MPRIS interfaces. The vtable macros (SD_BUS_METHOD, SD_BUS_PROPERTY…) and the variadic
// reply and signal functions are not imported into Swift: these helpers build the vtables and send what is needed.
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

/// The three callbacks every entry of a shelf vtable goes to; `userdata` is the Swift object's context.
typedef int (*CSystemd_method_t)(sd_bus_message *m, void *userdata, sd_bus_error *error);
typedef int (*CSystemd_getter_t)(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error);
typedef int (*CSystemd_setter_t)(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *value, void *userdata, sd_bus_error *error);

static inline sd_bus_vtable *CSystemd_copy_vtable(const sd_bus_vtable *entries, size_t size) {
    sd_bus_vtable *copy = malloc(size);
    if (copy) memcpy(copy, entries, size);
    return copy;
}

#define CSYSTEMD_CHANGE SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CSYSTEMD_CONST SD_BUS_VTABLE_PROPERTY_CONST

/// org.mpris.MediaPlayer2, allocated once for the life of the process (sd-bus keeps a pointer to it).
static inline sd_bus_vtable *CSystemd_mpris_root_vtable(CSystemd_method_t method, CSystemd_getter_t get) {
    const sd_bus_vtable entries[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Raise", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Quit", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("CanQuit", "b", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("CanRaise", "b", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("HasTrackList", "b", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("Identity", "s", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("SupportedUriSchemes", "as", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("SupportedMimeTypes", "as", get, 0, CSYSTEMD_CONST),
        SD_BUS_VTABLE_END
    };
    return CSystemd_copy_vtable(entries, sizeof entries);
}

/// org.mpris.MediaPlayer2.Player, allocated once for the life of the process.
static inline sd_bus_vtable *CSystemd_mpris_player_vtable(CSystemd_method_t method, CSystemd_getter_t get,
                                                          CSystemd_setter_t set) {
    const sd_bus_vtable entries[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Next", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Previous", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Pause", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("PlayPause", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Stop", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Play", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Seek", "x", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("SetPosition", "ox", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("OpenUri", "s", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL("Seeked", "x", 0),
        SD_BUS_PROPERTY("PlaybackStatus", "s", get, 0, CSYSTEMD_CHANGE),
        SD_BUS_WRITABLE_PROPERTY("Rate", "d", get, set, 0, CSYSTEMD_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Metadata", "a{sv}", get, 0, CSYSTEMD_CHANGE),
        SD_BUS_WRITABLE_PROPERTY("Volume", "d", get, set, 0, CSYSTEMD_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Position", "x", get, 0, 0),
        SD_BUS_PROPERTY("MinimumRate", "d", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("MaximumRate", "d", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("CanGoNext", "b", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("CanGoPrevious", "b", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("CanPlay", "b", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("CanPause", "b", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("CanSeek", "b", get, 0, CSYSTEMD_CONST),
        SD_BUS_PROPERTY("CanControl", "b", get, 0, CSYSTEMD_CONST),
        SD_BUS_VTABLE_END
    };
    return CSystemd_copy_vtable(entries, sizeof entries);
}

/// An empty method return. The corresponding C function is `sd_bus_reply_method_return`.
static inline int CSystemd_reply_empty(sd_bus_message *call) { return sd_bus_reply_method_return(call, NULL); }

/// The Seeked signal with the new position in microseconds. The corresponding C function is `sd_bus_emit_signal`.
static inline int CSystemd_emit_seeked(sd_bus *bus, const char *path, int64_t microseconds) {
    return sd_bus_emit_signal(bus, path, "org.mpris.MediaPlayer2.Player", "Seeked", "x", microseconds);
}

/// PropertiesChanged for one property. The corresponding C function is `sd_bus_emit_properties_changed`.
static inline int CSystemd_emit_changed(sd_bus *bus, const char *path, const char *interface, const char *name) {
    return sd_bus_emit_properties_changed(bus, path, interface, name, NULL);
}

static inline int CSystemd_append_bool(sd_bus_message *m, int value) { return sd_bus_message_append_basic(m, 'b', &value); }
static inline int CSystemd_append_double(sd_bus_message *m, double value) { return sd_bus_message_append_basic(m, 'd', &value); }
static inline int CSystemd_append_int64(sd_bus_message *m, int64_t value) { return sd_bus_message_append_basic(m, 'x', &value); }
static inline int CSystemd_append_string(sd_bus_message *m, const char *value) { return sd_bus_message_append_basic(m, 's', value); }
static inline int CSystemd_append_path(sd_bus_message *m, const char *value) { return sd_bus_message_append_basic(m, 'o', value); }
static inline int CSystemd_read_double(sd_bus_message *m, double *value) { return sd_bus_message_read_basic(m, 'd', value); }
static inline int CSystemd_read_int64(sd_bus_message *m, int64_t *value) { return sd_bus_message_read_basic(m, 'x', value); }
/// A string or an object path; `value` points into the message.
static inline int CSystemd_read_text(sd_bus_message *m, char type, const char **value) {
    return sd_bus_message_read_basic(m, type, value);
}
static inline int CSystemd_read_bool(sd_bus_message *m, int *value) { return sd_bus_message_read_basic(m, 'b', value); }
/// An `ay`; `bytes` points into the message.
static inline int CSystemd_read_bytes(sd_bus_message *m, const void **bytes, size_t *size) {
    return sd_bus_message_read_array(m, 'y', bytes, size);
}
static inline int CSystemd_append_bytes(sd_bus_message *m, const void *bytes, size_t size) {
    return sd_bus_message_append_array(m, 'y', bytes, size);
}
#endif
