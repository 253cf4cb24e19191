#include "support/Error.h"

#include "llvm/Support/raw_ostream.h"

namespace wb::support {

char CommandError::ID = 0;

void CommandError::log(llvm::raw_ostream &OS) const { OS << Message; }

std::error_code CommandError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error makeError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

std::string printableText(llvm::StringRef Text, bool FirstLine) {
  std::string M = (FirstLine ? Text.split('\n').first : Text).str();
  // Line breaks and tabs keep a parser's layout (the quoted line and its caret under it).
  for (char &C : M)
    if ((static_cast<unsigned char>(C) < 0x20 && C != '\n' && C != '\t') ||
        static_cast<unsigned char>(C) >= 0x7f)
      C = '?';
  return M;
}

std::string aboutFile(llvm::StringRef Path, llvm::StringRef Message) {
  if (Message.starts_with(Path) && Message.drop_front(Path.size()).starts_with(":"))
    return Message.str();
  return (Path + ": " + Message).str();
}

llvm::Error fileError(llvm::StringRef Path, const llvm::Twine &What) {
  return makeError(Path + ": " + What);
}

llvm::Error lineError(llvm::StringRef Path, uint64_t Line, const llvm::Twine &What) {
  return makeError(Path + ":" + llvm::Twine(Line) + ": " + What);
}

llvm::Error byteError(llvm::StringRef Name, uint64_t Offset, const llvm::Twine &What) {
  return makeError(Name + ": byte " + llvm::Twine(Offset) + ": " + What);
}

llvm::Error prefixError(llvm::StringRef Path, llvm::Error E) {
  auto [Kind, Message] = describeFailure(std::move(E));
  return llvm::make_error<CommandError>(Kind, (Path + ": " + Message).str());
}

llvm::Error usageError(const llvm::Twine &Message) {
  return llvm::make_error<CommandError>(FailureKind::Usage, Message.str());
}

llvm::Error interruptedError(const llvm::Twine &Message) {
  return llvm::make_error<CommandError>(FailureKind::Interrupted, Message.str());
}

llvm::Error reportedFailure() {
  return llvm::make_error<CommandError>(FailureKind::Reported, "");
}

FailureKind failureKind(llvm::Error &E) {
  FailureKind K = FailureKind::Failed;
  E = llvm::handleErrors(std::move(E), [&](std::unique_ptr<CommandError> C) -> llvm::Error {
    K = C->kind();
    return llvm::Error(std::move(C));
  });
  return K;
}

std::pair<FailureKind, std::string> describeFailure(llvm::Error E) {
  FailureKind Kind = FailureKind::Failed;
  std::string Message;
  llvm::handleAllErrors(
      std::move(E),
      [&](const CommandError &C) {
        Kind = C.kind();
        Message = C.message();
      },
      [&](const llvm::ErrorInfoBase &Other) { Message = Other.message(); });
  return {Kind, Message};
}

} // namespace wb::support
