#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

// FFmpeg spells these as expression macros, which Swift does not import.
static inline int vault_av_error_eof(void) { return AVERROR_EOF; }
static inline int vault_av_error_again(void) { return AVERROR(EAGAIN); }
static inline int vault_av_error_exit(void) { return AVERROR_EXIT; }
static inline int64_t vault_av_nopts_value(void) { return AV_NOPTS_VALUE; }
