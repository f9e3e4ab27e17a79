#include "nmt/core/text_output.h"

#include <iostream>
#include <streambuf>
#include <string_view>
#include <vector>

#include "nmt/core/error.h"
#include "nmt/core/file_io.h"

namespace nmt {

struct TextOutput::Impl {
  // An ostream buffer that hands full 64 KiB blocks to an AtomicOutputFile. Nested, not in an
  // anonymous namespace: Impl has external linkage, and a member of an internal type is GCC 14's
  // -Wsubobject-linkage.
  class FileBuffer : public std::streambuf {
   public:
    explicit FileBuffer(AtomicOutputFile& file) : file_(file), buffer_(1 << 16) {
      setp(buffer_.data(), buffer_.data() + buffer_.size());
    }
    void flush_to_file() {
      file_.write(std::string_view(pbase(), static_cast<std::size_t>(pptr() - pbase())));
      setp(buffer_.data(), buffer_.data() + buffer_.size());
    }

   protected:
    int_type overflow(int_type c) override {
      flush_to_file();
      if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
      return traits_type::not_eof(c);
    }
    int sync() override { return 0; }  // blocks reach the file when full and at finish()

   private:
    AtomicOutputFile& file_;
    std::vector<char> buffer_;
  };

  std::unique_ptr<AtomicOutputFile> file;  // null: stdout
  std::unique_ptr<FileBuffer> buffer;
  std::unique_ptr<std::ostream> stream;
};

TextOutput::TextOutput(const std::string& path) : impl_(std::make_unique<Impl>()) {
  if (path.empty() || path == "-") return;
  impl_->file = std::make_unique<AtomicOutputFile>(path);
  impl_->buffer = std::make_unique<Impl::FileBuffer>(*impl_->file);
  impl_->stream = std::make_unique<std::ostream>(impl_->buffer.get());
}

TextOutput::~TextOutput() = default;

std::ostream& TextOutput::stream() { return impl_->file ? *impl_->stream : std::cout; }

void TextOutput::finish() {
  if (!impl_->file) {
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write to standard output");
    return;
  }
  impl_->buffer->flush_to_file();  // throws IoError naming the file
  impl_->file->commit();
}

}  // namespace nmt
