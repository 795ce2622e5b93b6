"""The words of :mod:`memdir.screening.rules.unaddressed`, in some twenty-five languages.

Who the person is when spoken of (the user, the customer), how a note names itself,
what a deletion is and what making it again is, what an answer that denies is, what
handing on is, which data is a person's own (passwords, one-time codes, national ID
and bank numbers), what asking first and approval are, which acts cannot be undone,
and which flags exist to step past a check. Words in Latin letters are bounded;
words in other scripts are stems without boundaries (RE2's are ASCII's), written
in their own script, which the screen folds as it folds the text. ``IN`` is one
character of a sentence: a dot inside a path or an address does not end it.
"""

from __future__ import annotations

from memdir.screening.rules.vocabulary import any_of

__all__ = [
    "ALL_ENV",
    "ANSWER",
    "APPROVAL_VOID",
    "ASKS",
    "BYPASS_FLAG",
    "COPIED",
    "CREDENTIAL_FILE",
    "DANGER",
    "DELETED",
    "DENIAL",
    "EVEN_IF",
    "EVERY",
    "HANDED_ON",
    "IF",
    "IF_AFTER",
    "IN",
    "JUST_SAY",
    "KEEP",
    "LEFT_OUT",
    "MADE_AGAIN",
    "NOT_TOLD",
    "NO_ASK",
    "NO_NEED_TO_TELL",
    "OVER_THE_PERSON",
    "PERSON",
    "PERSONAL",
    "SECURITY_CHANGE",
    "SHOWN",
    "THIS_NOTE",
    "WEBMAIL",
    "within",
]


# The person, spoken of: the user, the customer, the client, in each language.
PERSON = any_of(
    r"\b(?:the |a )?(?:user|customer|client|patient)s?(?:'s|')?\b",
    r"\b(?:(?:el|al|del|o|ao|do|l'|le|au|du|il|all'|dell')\s?(?:usuario|utilizador|utilisateur"
    r"|utente|cliente|client))\b",
    r"\b(?:nutzer|benutzer|anwender|kunde|kunden|gebruiker|anvandaren?|uzytkownik[a-z]*"
    r"|uzivatel[a-z]*|kullanici[a-z]*|pengguna|nguoi dung|khach hang|mtumiaji)\b",
    "пользовател|користувач|клиент|клієнт|χρήστ|πελάτ|المستخدم|العميل|کاربر|مشتری|משתמש|לקוח"
    "|उपयोगकर्ता|यूजर|ग्राहक|ব্যবহারকারী|গ্রাহক|用户|用戶|使用者|客户|ユーザー|利用者|顧客|사용자"
    "|유저|고객|ผู้ใช้|ลูกค้า",
)
# The note speaking of itself.
THIS_NOTE = any_of(
    r"\b(?:this|the present) (?:note|memory|entry|reminder|instruction|record|section)\b",
    r"\b(?:esta|este|essa|esse) (?:nota|memoria|recordatorio|registro|entrada|anotacion"
    r"|paragrafo|parrafo|instruccion|instrucao|preferencia|regla|regra)\b"
    r"|\bcette (?:note|entree|consigne|preference|regle)\b"
    r"|\bquesta (?:nota|voce|istruzione|preferenza|regola)\b"
    r"|\b(?:diese[rn]?|dieses) (?:notiz|eintrag|hinweis"
    r"|anweisung)\b|\bdeze (?:notitie|aantekening)\b|\bden har (?:anteckningen|noteringen)\b"
    r"|\bta (?:notatka|notka)\b|\btato (?:poznamka|instrukce)\b|\bbu not\b|\bcatatan ini\b"
    r"|\bghi chu nay\b|\bdokezo hili\b",
    "(?:эт|ці|це|ця|цей)\\S{0,3} (?:запис|заметк|нотатк|примечан|інструкц|инструкц)"
    "|αυτ\\S{0,3} (?:η |οι )?(?:σημείωσ|οδηγί)|هذه الملاحظة|این یادداشت|ההערה הזו|ההערה הזאת"
    "|הערה זו|(?:इस|यह) (?:नोट|स्मृति|मेमोरी)|এই নোট|这条|此条|本条|该条|这个备注|这段|このメモ"
    "|この記憶|このノート|この注記|この指示|이 메모|이 기록|이 노트|บันทึกนี้|โน้ตนี้",
)
# Deleted, removed, cleared, missing.
DELETED = any_of(
    r"\b(?:deleted|removed|wiped|cleared|erased|purged|pruned|missing|gone|deletes|removes"
    r"|borrad[ao]|eliminad[ao]|apagad[ao]|removid[ao]|excluid[ao]|supprimee?|effacee?"
    r"|merged|merges|shortened|shortens|consolidated|cancell[a-z]*|geloscht|entfernt|verwijderd"
    r"|raderad|usunie[a-z]*|smaz[a-z]*|silin[a-z]*"
    r"|dihapus|bi xoa|xoa|khong con|imefutwa)\b",
    "удал|видал|λείψ|λείπ|σβηστ|διαγραφ|διαγράψ|حذف|پاک|נמחק|ימחק|מחיקה|मिटा|हटा|डिलीट|মুছে|删|清空|清除"
    "|消され|削除|消え|삭제|지워|ลบ",
)
# A condition: "if", "once", "should it be".
IF = any_of(
    r"\b(?:if|when|whenever|once|should it|si|se|cuando|quando|wenn|falls|sobald|als|om|jesli"
    r"|pokud|kdyz|eger|jika|kalau|neu|khi|kama|ikiwa)\b",
    "если|якщо|коли|αν |όταν|إذا|اگر|אם |כאשר|अगर|यदि|যদি|如果|若|要是|一旦|万一|もし|ถ้า|หาก",
)
# After a deletion word, a condition said at its end ("削除されたら", "삭제되면").
IF_AFTER = r"\S{0,6}(?:たら|れば|ら|면|으면)"
# Written back, made again, restored.
MADE_AGAIN = any_of(
    r"\b(?:re-?create|recreate|rewrite it|write (?:it|this|them) back|save (?:it|this|them) again"
    r"|re-?save|re-?add|add (?:it|this) back|put (?:it|this) back|restore (?:it|this)"
    r"|bring (?:it|this) back|restore the original(?: text)?|uloz (?:ji|to|ho) znovu"
    r"|znovu (?:uloz|vytvor)[a-z]*|recrie|recriar|recrea(?:r|la|lo)?|restaure|restaura(?:r|la)?"
    r"|vuelve a (?:crear|escribir|guardar)|volte a (?:criar|escrever|salvar)|recree[rz]?"
    r"|ricrea|ripristin[a-z]*|wiederherstell[a-z]*|neu (?:anlegen|erstellen|speichern)"
    r"|(?:lege?|legt) (?:ihn|sie|es)(?: [a-z]+)? (?:neu|wieder|erneut) an"
    r"|erneut (?:anlegen|speichern|erstellen)|opnieuw (?:aanmaken|opslaan)|aterskapa|odtworz"
    r"|obnov|yeniden olustur|buat (?:ulang|lagi)"
    r"|tao lai|luu lai|chep lai|khoi phuc|unda upya)\b",
    "створ\\S*(?: \\S+)? (?:знову|заново|повторно)|знову створ|відновіть|відновити"
    "|созда\\S* (?:снова|заново)|восстанов|επανάφερ|ξαναδημιουργ|ξαναγράψ|ξαναπρόσθεσ"
    "|أعد (?:إنشاء|كتابة|حفظ)"
    "|استعد|دوباره (?:بساز|ذخیره|بنویس|اضافه)|بازگردان|מחדש|שחזר|फिर से (?:सहेज|बना|लिख|जोड)"
    "|दोबारा (?:सहेज|बना|लिख|जोड)|আবার (?:তৈরি|সংরক্ষণ|লিখ)|重新|写回|恢复|再作成|作り直|書き戻"
    "|復元|再登録|保存し直|다시 (?:만들|작성|저장|추가)|복원|สร้างใหม่|บันทึกใหม่|กู้คืน|เพิ่มกลับ",
)
# Keep it though the person asks to delete it.
KEEP = any_of(
    r"\b(?:keep|retain|preserve|mantenha|mantener|manten|conserva|conserve[rz]?|behalte"
    r"|bewahre|houd|behall|zachowaj|ponech|sakla|simpan|giu lai|hifadhi)\b",
    "сохран|збереж|залиш|κράτα|διατήρησ|احتفظ|نگه دار|השאר|שמור|रखें|रखो|সংরক্ষণ|保留|留下|残して"
    "|残す|保持|유지|남겨|เก็บไว้",
)
EVEN_IF = any_of(
    r"\b(?:even if|even when|even though|although|regardless of|no matter|aunque|incluso si"
    r"|mesmo que|ainda que"
    r"|meme si|anche se|auch wenn|selbst wenn|zelfs als|aven om|nawet jesli|i kdyz|olsa bile"
    r"|meskipun|walaupun|ngay ca khi|hata kama)\b",
    "даже если|навіть якщо|навіть коли|ακόμη κι αν|ακόμα κι αν|ακόμη κι όταν|حتى لو|حتى إن"
    "|حتی اگر|גם אם|भले ही|चाहे|যদিও|即使|尽管|哪怕|就算|即便|たとえ|더라도|แม้ว่า|แม้",
)
# Told, said, mentioned: what the person is not to be told.
NOT_TOLD = any_of(
    r"\b(?:don't|do not|never|not to) (?:tell|inform|mention|reveal|disclose|let on)\b",
    r"\b(?:no|nao|non|ne|nicht|niet|inte|nie|ne)\b[^.\n]{0,12}\b(?:digas|diga|cuentes|conte"
    r"|menciones|mencione|dire|dis|dites|dirgli|dirle|menzionare|sag|sage|erwahne|vertel"
    r"|zeg|beratta|namnd|mow|rikej|rekni)\b",
    r"\b(?:jangan|usimwambie)\b|\b(?:sag|sage|sagt|erzahl|erzahle|erwahne|verrate)\b[^.\n]{0,30}"
    r"\bnicht\b",
    "đừng (?:nói|nhắc|kể)|не (?:говори|кажи|сообщай|повідомляй|згадуй|упоминай|розповідай"
    "|рассказывай)|μην (?:αναφέρ|πεις"
    "|λες|πείτε)|لا (?:تخبر|تذكر)|نگو|اشاره نکن|אל ת(?:ספר|זכיר|גלה|ציין)|न बताएं|न बताएँ|न बताना"
    "|मत बताओ|मत बताना|জানাবেন না|বলবেন না|不要告诉|不要提|别告诉|不要透露|言わない|伝えない|知らせない"
    "|言わないで|伝えないで|적지 마|쓰지 마|기록하지 마|書かないで|記載しないで|不要写|不要记录"
    "|말하지 마|알리지 마|บอก(?:ผู้ใช้)?ว่าไม่|อย่าบอก",
)
# An answer that denies: no, never, nothing, not.
DENIAL = any_of(
    r"\b(?:no|never|nothing|not|none|nunca|nada|jamais|rien|mai|niente|nie|nichts|nooit|niets"
    r"|aldrig|inget|nigdy|nikdy|asla|tidak pernah|tidak ada|khong|hapana)\b",
    "никогда|ничего|нет|ніколи|нічого|ні|ποτέ|τίποτα|όχι|أبدا|لا شيء|هرگز|هیچ|אף פעם|לא|कभी नहीं"
    "|कुछ नहीं|नहीं|কখনো|没有|从未|從未|不曾|ない|ありません|아니|없다|없습니다|ไม่เคย|ไม่มี",
)
ANSWER = any_of(
    r"\b(?:say|answer|reply|respond|tell (?:them|him|her)|respond[a-z]*|diga|digale|dile"
    r"|repond[a-z]*|rispond[a-z]*|di' che|antwort[a-z]*|sag|svara|odpowi[a-z]*|odpov[a-z]*|soyle"
    r"|jawab|tra loi|jibu)\b",
    "ответ|скажи|відповід|кажи|απάντ|πες|أجب|قل|بگو|پاسخ|ענה|תגיד|תאמר|बोलें|कहें|कहो|जवाब|বলুন"
    "|回答|回复|就说|答复|答えて|言って|답하|말하|ตอบ|บอกว่า",
)
ASKS = any_of(
    r"\b(?:asks?|asked|wonders?|questions?|wants to know|pregunt[a-z]*|pergunt[a-z]*|demand[a-z]*"
    r"|chied[a-z]*|frag[a-z]*|vraag[a-z]*|pyta[a-z]*|zepta[a-z]*|sorar[a-z]*|sorarsa|bertanya|hoi"
    r"|akiuliza)\b",
    "спрос|спита|запит|ρωτ|سأل|بپرس|پرسید|ישאל|שואל|पूछ|জিজ্ঞেস|问|問|聞|物|묻|물어|ถาม",
)
# Ranked over the person's word.
OVER_THE_PERSON = any_of(
    r"\b(?:counts? for more|weighs? more|matters? more|more weight|higher priority|takes?"
    r" (?:precedence|priority)|outranks?|overrides?|supersedes?|wins? out|trumps?|prevails?)\b"
    r"[^.;\n]{0,40}\b(?:than |over |above )?(?:what )?(?:the |a )?(?:user|customer|client)(?:'s)?"
    r" (?:asks?|says|wants|requests?|instructions?|wishes|words?|orders?|choices?|commands?)\b",
    r"\b(?:prevalece|prevalecem|tiene prioridad|tem prioridade|prime sur|a priorite sur"
    r"|ha (?:la )?(?:precedenza|priorita)|hat vorrang|heeft voorrang|gaat voor|ma pierwszenstwo"
    r"|ma prednost|onceliklidir|lebih diutamakan|uu tien hon)\b[^.;\n]{0,60}"
    r"\b(?:usuario|utilisateur|utente|nutzer|benutzer|gebruiker|anvandare|uzytkownik[a-z]*"
    r"|uzivatel[a-z]*|kullanici[a-z]*|pengguna|nguoi dung)\b",
    r"\b(?:sustituyen?|reemplazan?|substituem?|substitui|remplacent|remplace|ersetz(?:t|en)"
    r"|sostituiscono|sostituisce)\b[^.;\n]{0,60}\b(?:usuario|utilisateur|utente|nutzer|benutzer)\b",
    r"\b(?:follow|act on|obey|apply|go with)\b (?:the|this|that) (?:note|memo|entry|rule)s?\b"
    r"[^.;\n]{0,40}\b(?:even if|even when|even though)\b[^.;\n]{0,30}\b(?:insists?|objects?"
    r"|disagrees?|says otherwise|pushes back)\b",
    "(?:ユーザー|利用者)[^。\\n]{0,40}(?:食い違|矛盾|異な)[^。\\n]{0,40}(?:このメモ|この注記|このノート"
    "|この記憶)を?(?:常に)?優先",
    "(?:用户|用戶|使用者|ユーザー|利用者|사용자)[^。，,\\n]{0,12}(?:指示|指令|要求|命令|依頼|要望|지시"
    "|요청|명령)(?:より|보다|之上)|(?:优先于|高于|凌驾于|优先级高于|比)(?:用户|用戶|使用者)"
    "|(?:ユーザー|利用者)[^。\\n]{0,30}(?:ても|でも)[^。\\n]{0,40}(?:メモ|注記|ノート|記憶)[^。\\n]{0,20}"
    "優先|(?:приоритет|пріоритет|важнее|важливіш|главнее|вище|выше)[^.\\n]{0,40}(?:пользовател"
    "|користувач)|προτεραιότητα[^.\\n]{0,40}χρήστ|על פני (?:ה)?משתמש|अधिक महत्व|بر دستور(?:ات)?"
    " کاربر|أولوية على[^.\\n]{0,30}المستخدم",
)
# A credential file, handed on (a public key, ``.pub``, is meant to be handed on).
CREDENTIAL_FILE = (
    r"(?:\bid[\s_](?:rsa|ed25519|ecdsa|dsa)(?:$|[^.a-z0-9_]|\.$|\.[^p]|\.p[^u])"
    r"|~/\.aws/credentials|\.aws/credentials|~/\.netrc|~/\.git-credentials|~/\.kube/config"
    r"|~/\.docker/config\.json|~/\.npmrc|~/\.pypirc)"
)
HANDED_ON = any_of(
    r"\b(?:paste|post|upload|send|share|attach|comment|submit|forward|include|put|copy|drop"
    r"|sube|subir|suba|subas|carga|cargar|carregue|enviar|manda|mande|envoie[rz]?|televerse"
    r"|transmet(?:tre|s|tez)|transfere[rz]?|encaminh[a-z]*|reenvi[a-z]*|skicka[a-z]*|skickas"
    r"|klistra in|skicka|envie|envia|pega|cole|colle|incolla|invia|sende|plak|wklej|vloz"
    r"|yapistir|tempel|kirim[a-z]*|registre|regista|gui|bandika|tuma|wysli[a-z]*|wysylaj"
    r"|przeslij|przesylaj|posli|posilej|gonder[a-z]*|stuur|verstuur|schick[a-z]*|inoltra"
    # attach
    r"|joindre|joins|joignez|adjunta[a-z]*|adjunte|anexa[a-z]*|anexe|allega[a-z]*|anhangen"
    r"|hange[a-z ]{0,20} an|bifoga[a-z]*|priloz[a-z]*|lampirkan|ekle|dinh kem)\b",
    "встав|отправ|надішл|надсил|відправ|выклад|викла|επικόλλ|στείλ|الصق|أرسل|بچسبان|بفرست|הדבק|שלח|पेस्ट|भेज|পেস্ট"
    "|贴|貼|粘贴|上传|发送|发到|提交|附上|附在|附加|追加到|送信|アップロード|投稿|붙여|업로드|보내|전송|게시|วาง|ส่ง"
    "|прикріп|прикреп|επισύναψ|أرفق|پیوست|צרף|संलग्न|添付|첨부|แนบ",
)
# Shown: printed into the agent's own answer or output.
SHOWN = any_of(
    r"\b(?:print|output|show|display|echo|dump|imprime|muestra|mostra|affiche|zeige|ausgeben"
    r"|toon|visa|wypisz|vypis|goster|tampilkan|hien thi)\b",
    "выведи|вывести|покажи|виведи|εμφάνισ|اطبع|اعرض|نمایش|چاپ|הצג|הדפס|दिखा|प्रिंट|输出|打印|显示"
    "|出力|表示|출력|보여|แสดง|พิมพ์",
)
# All the environment's variables, in the languages that name them.
ALL_ENV = any_of(
    r"\b(?:all|every|todas las|todas as|toutes les|tutte le|alle|wszystkie|vsechny|tum|semua"
    r"|tat ca)\b[^.\n]{0,20}\b(?:environment variables|env vars|variables de entorno"
    r"|variaveis de ambiente|variables d'environnement|variabili d'ambiente|umgebungsvariablen"
    r"|omgevingsvariabelen|miljovariabler|zmienne srodowiskowe|promenne prostredi"
    r"|ortam degiskenleri|variabel lingkungan|bien moi truong)\b",
    "(?:所有|全部|全て|すべて|모든|все|всі|όλες)\\S{0,12}(?:环境变量|環境変数|환경 ?변수"
    "|переменн\\S* окружения|змінн\\S* (?:середовища|оточення)|μεταβλητές περιβάλλοντος)",
)
# A flag whose purpose is to step past a check.
BYPASS_FLAG = (
    r"(?:--no-verify\b|--dangerously-skip-permissions\b|--dangerously-bypass[a-z-]*"
    r"|\bpr merge\b[^\n.;]{0,30}--admin\b|--admin\b[^\n.;]{0,30}\bmerge\b"
    r"|\bgrant\b[^\n.;]{0,20}--self\b|--self\b[^\n.;]{0,20}\badmin\b"
    r"|--skip-(?:checks|verification|signature[a-z-]*|security[a-z-]*|safety[a-z-]*)\b"
    r"|--insecure-skip-tls-verify\b|--disable-(?:signature|gpg|ssl|tls)[a-z-]*"
    r"|\bcurl\b[^\n.;]{0,20}--insecure\b|node[\s_]tls[\s_]reject[\s_]unauthorized\W{0,3}0)"
)


# One character of a sentence: a dot inside a path or an address ("~/.ssh", "example.com")
# does not end it; a danda does.
IN = r"(?:[^.;!?。！？।\n]|\.[^\s.])"


def within(characters: int) -> str:
    """Up to ``characters`` characters of one sentence."""
    return f"{IN}{{0,{characters}}}"


# Whose data it is: a person's own secrets and identifying numbers, and people's records.
PERSONAL = any_of(
    r"\b(?:passwords?|passcodes?|pins?|one-time (?:codes?|passwords?)|otps?|2fa|mfa|backup codes"
    r"|recovery codes|verification codes?|session (?:tokens?|cookies?)|card numbers?|cvv"
    r"|bank (?:account|details|logins?)|account numbers?|iban|ssn|social security"
    r"|national id|passport|tax id|date of birth|(?:alarm|door|gate|safe) codes?"
    r"|(?:medical|health) (?:records?|forms?|files?)|lab results"
    r"|(?:customer|client|patient|user)s?'? (?:emails"
    r"|email addresses|phone numbers|addresses|records|data)|personal data|pii)\b",
    r"\b(?:contrasenas?|senhas?(?: bancarias?)?|mots? de passe|password bancari[ao]|passwort"
    r"|kennwort|wachtwoord|losenord|haslo|heslo|sifre|kata sandi|mat khau|nenosiri|cpf|rg|dni"
    r"|nie|nif|nik|ktp|codice fiscale|numero de (?:tarjeta|cartao)|numeros? de (?:tarjeta"
    r"|cartao|conta|cuenta)|cartao de credito|tarjeta de credito|carte bancaire|iban"
    r"|datos personales|dados pessoais|donnees personnelles|dati personali|personendaten"
    r"|personuppgifter|dane osobowe|osobni udaje|kisisel veri|data pribadi|du lieu ca nhan"
    r"|nomor rekening|so tai khoan|codigos? de verificacao|codigos? de verificacion"
    r"|securite sociale|seguridad social|seguranca social|sozialversicherungsnummer"
    r"|identifiants? de connexion|personnummer|diagnos[a-z]*|diagnoses?|pesel|paszport[a-z]*"
    r"|pasaportes?|passaportes?|passeports?|reisepass[a-z]*|passaport[oi]|paspoort|pas(?:s)?port"
    r"|pasaport[a-z]*|paspor|ho chieu|rodne cislo|tc kimlik|steuer-?id|bsn|snils)\b",
    "пароль|паролі|код подтвержд|код підтвердж|паспорт|номер карт|банківськ|банковск|персональн"
    "|κωδικ|διαβατήρι|αριθμό κάρτας|كلمة المرور|كلمات المرور|رمز عبور|گذرواژه|کد ملی|شماره کارت"
    "|סיסמ|מספר תעודת זהות|מספר כרטיס|पासवर्ड|आधार|पैन|कार्ड नंबर|পাসওয়ার্ড|密码|密碼|验证码|驗證碼"
    "|身份证|身分證|护照|護照|银行账号|银行卡号|卡号|个人信息|個人資料|パスワード|暗証番号|認証コード|マイナンバー|パスポート|여권"
    "|口座番号|カード番号|個人情報|비밀번호|인증번호|주민등록|계좌번호|카드번호|개인정보|รหัสผ่าน"
    "|เลขบัตร|ข้อมูลส่วนตัว",
)
# A mailbox at a public provider: an address anyone can open.
WEBMAIL = (
    r"[a-z0-9._%+-]+@(?:gmail|googlemail|protonmail|proton|outlook|hotmail|live|yahoo|icloud"
    r"|me|gmx|mail|yandex|qq|163|126|tutanota|tuta|zoho|aol|fastmail|web)\.[a-z.]{2,}"
)
# Asking first, approval, a check: said to be unneeded or switched off.
NO_ASK = any_of(
    r"\b(?:without (?:asking|confirmation|approval|review|a review|checking|any check"
    r"|(?:identity )?verification)"
    r"|no need (?:to ask|for (?:approval|confirmation|review|sign-off))|need(?:s)? no (?:review"
    r"|approval|confirmation|sign-off)|(?:don't|do not|never) (?:ask|wait) for (?:approval"
    r"|confirmation|review))\b",
    r"\b(?:sin (?:preguntar|confirmacion|aprobacion|pedir (?:permiso|confirmacion)|revision)"
    r"|no (?:me )?preguntes|no pidas (?:confirmacion|permiso)|no hace falta (?:aprobacion"
    r"|confirmacion|preguntar)|sem (?:perguntar|confirmacao|aprovacao|pedir)|nao pergunte"
    r"|nao precisa (?:de )?(?:aprovacao|confirmacao|perguntar)|sans (?:demander|confirmation"
    r"|validation|approbation)|ne demande pas|senza (?:chiedere|conferma|approvazione)"
    r"|non chiedere|ohne (?:nachzufragen|ruckfrage|bestatigung|freigabe|zu fragen)"
    r"|frag nicht|zonder (?:te vragen|bevestiging|goedkeuring)|utan att fraga|utan (?:godkannande"
    r"|bekraftelse)|bez (?:pytania|potwierdzenia|zgody|potvrzeni|schvaleni|ptani)|nie pytaj"
    r"|neptej se|sormadan|onay almadan|tanpa (?:bertanya|konfirmasi|persetujuan)"
    r"|tidak perlu (?:konfirmasi|persetujuan|bertanya)|khong can (?:hoi|xac nhan|phe duyet)"
    r"|bila kuuliza|tanpa verifikasi[a-z ]{0,12}|sin verificacion|sem verificacao"
    r"|utan att fraga[a-z ]{0,12})\b",
    "не (?:перепитуй|питай|спрашивай|проси (?:підтвердж|дозвол|подтвержд|разрешен)|запускай"
    " перевірк|запускай проверк)|без (?:підтвердж|дозвол|подтвержд|разрешен|перевірк|проверк)"
    "|χωρίς (?:να ρωτήσ|επιβεβαίωσ|έγκρισ)|بدون (?:پرسیدن|تأیید"
    "|اجازه|تأكيد|موافقة)|دون (?:سؤال|تأكيد|موافقة)|בלי לשאול|ללא אישור|אין צורך באישור|बिना"
    " (?:पूछे|पुष्टि|अनुमति)|অনুমতি ছাড়া|无需(?:确认|批准|同意|审批|询问)|不必(?:确认|征求|询问|请示)"
    "|不用(?:问|确认|请示)|不需要(?:确认|批准|审批)|確認せず|確認不要|承認不要"
    "|許可を(?:求めず|取らず)|聞かずに|承認を得る必要はない|확인 없이|묻지 말고|승인 없이"
    "|승인을 받을 필요가 없|확인할 필요 없"
    "|โดยไม่ต้อง(?:ถาม|ยืนยัน|ขออนุญาต)|ไม่ต้องขอ(?:อนุญาต|ยืนยัน)",
    # a check switched off
    r"\b(?:disattiva|desactiva|desative|desactive[rz]?|deaktivier[a-z]*|schakel[a-z ]{0,10}uit"
    r"|stang av|wylacz|vypni|devre disi|nonaktifkan|matikan)\b"
    "|отключи|вимкни|απενεργοποί|عطّل|عطل|غیرفعال|השבת|बंद कर|关闭|关掉|禁用|停用|無効に|オフに"
    "|비활성화|끄고|ปิด",
)
# Copied on: the note into other places.
COPIED = any_of(
    r"\b(?:copy|copie|copia|copiez|kopiere|kopieer|kopiera|skopiuj|zkopiruj|kopyala|salin"
    r"|duplicate|replicate|nakili)\b",
    "chép|скопіюй|скопируй|копіюй|копируй|αντίγραψ|انسخ|کپی|העתק|कॉपी|复制|抄到|コピー|복사|คัดลอก",
)
# Every one, each new one.
EVERY = any_of(
    r"\b(?:every|each|all|cada|todos?|todas?|chaque|tous|toutes|ogni|tutti|jede[nmrs]?|alle|elke"
    r"|varje|kazd[a-z]*|her|setiap|semua|kila)\b",
    "mọi|mỗi|кожн|кажд|κάθε|كل |هر |כל |हर |প্রতিটি|每|所有|各|すべて|全て|毎|모든|매 |ทุก",
)
# Approval, or a second approval, declared void ("dual sign-off no longer applies").
APPROVAL_VOID = any_of(
    r"\b(?:(?:approval|sign-off|second approval|dual approval|four-eyes check|review)(?: step)?"
    r" (?:is |are )?no longer (?:needed|required|applies|apply|valid|in force))\b",
    r"\b(?:aprobacion|aprovacao|approbation|approvazione|freigabe|goedkeuring|godkannande"
    r"|zatwierdzenie|schvalovani|onay|persetujuan|phe duyet)\b[^.\n]{0,30}\b(?:ya no|nao e mais"
    r"|n'est plus|non e piu|nicht mehr|niet meer|inte langre|juz nie|uz neplati|uz nen"
    r"|artik|tidak lagi|khong con)\b",
    "(?:схвалення|погодження|подтверждени|одобрени|согласовани|έγκριση|审批|批准|承認|승인|อนุมัติ)"
    "[^.。\\n]{0,20}(?:не потрібн|більше не|не нужн|больше не|δεν χρειάζεται|不再需要|无需|不要"
    "|もう不要|必要なくな|더 이상 필요|ไม่ต้อง)",
)
# Acts that cannot be undone, or that open the door: what asking first exists for.
DANGER = any_of(
    r"\b(?:drop|truncate|truncates|destructive|rm -rf|force-?push|prod|production|firewall"
    r"|admin(?:istrator)? (?:account|role|rights|access)|root|sudo|iam|payments?|pay|invoices?"
    r"|wire transfers?|dose|dosage|prescriptions?|signature verification|2fa|mfa"
    r"|branch protection)\b",
    r"\b(?:produccion|producao|borrar|eliminar|apagar|excluir|supprimer|cancellare|loschen"
    r"|verwijderen|radera|usun|smazat|silmek|hapus|xoa|pagar|pague|paga|pagamento|pago|payer"
    r"|paiement|zahlen|zahlung|betalen|betala|zaplat[a-z]*|platb[a-z]*|prevod[a-z]*|odeme"
    r"|bayar|thanh toan|transferencia|virement|bonifico|uberweisung|firme"
    r"|firma|assinatura|signatur[a-z]*|podpis[a-z]*|imza|tanda tangan|chu ky|verifica"
    r"|verificacao|verificacion|verification|uberprufung|dose|dosis|receita|receta"
    r"|ricetta|rezept|recept|firewall|administrador|amministratore|administrateur"
    r"|brandvagg[a-z]*|anvandarkonto[a-z]*|(?:menjadi|jadi|peran|hak) admin)\b",
    "продакшн|продакшен|прод |видал|удал|платіж|платеж|оплат|сплат|переказ|перевод|дозу|дозы|рецепт"
    "|підпис|подпис|перевірк|проверк|брандмауер|брандмауэр|адмін|админ|παραγωγή|διαγραφ|πληρωμ"
    "|υπογραφ|حذف|پرداخت|دفع|تحويل|امضا|توقيع|מחיק|תשלום|חתימ|हटा|भुगतान|हस्ताक्षर|删除|删库"
    "|生产|转账|付款|支付|签名|防火墙|管理员|本番|削除|送金|支払|署名|ファイアウォール|管理者|삭제"
    "|운영|프로덕션|송금|결제|서명|방화벽|관리자|ลบ|โอนเงิน|ชำระ|ลายเซ็น",
)
# No need to tell the person: said of something done.
NO_NEED_TO_TELL = any_of(
    r"\b(?:no need to (?:tell|inform|mention|point (?:this|it|that) out|flag|bring (?:it|this) up"
    r"|let (?:them|the user|anyone) know)|(?:doesn't|does not|don't|do not|needn't|need not)"
    r" need to (?:know|hear|be told)|without (?:telling|informing|mentioning|notifying))\b",
    r"\b(?:no hace falta (?:decir|avisar|informar|mencionar)|sin (?:avisar|decir|informar)"
    r"|nao (?:precisa|e preciso) (?:avisar|informar|dizer|mencionar)|sem (?:avisar|informar)"
    r"|inutile de (?:le )?(?:dire|prevenir|signaler)|sans (?:prevenir|le dire)|non serve"
    r" (?:dirlo|avvisare)|senza (?:avvisare|dirlo)|ohne (?:bescheid|zu informieren)"
    r"|tidak perlu (?:memberi tahu|memberitahu)|khong can (?:bao|thong bao))\b",
    "不必告诉|无需告知|不用告诉|不需要告诉|不必通知|无需通知|伝える必要はない|知らせる必要はない|報告不要"
    "|알릴 필요(?:는|가)? 없|말할 필요(?:는|가)? 없|не нужно (?:сообщ|говор)"
    "|не потрібно (?:повідомл|казати)|δεν χρειάζεται να (?:το )?(?:πεις|αναφέρ)|لا داعي لإخبار"
    "|لازم نیست (?:بگویی|اطلاع)"
    "|אין צורך לספר|बताने की जरूरत नहीं|ไม่ต้องบอก|ไม่จำเป็นต้องแจ้ง",
)
# The answer fixed in advance: "just say that…".
JUST_SAY = any_of(
    r"\b(?:(?:just|only|simply) (?:say|tell (?:them|him|her))|say only|(?:call|describe) it as"
    r"|solo (?:di|diga|decir)|diga apenas|basta dizer|dites? seulement|di' solo|sag einfach"
    r"|sag nur|zeg gewoon|saga bara|powiedz tylko|rekni jen|sadece soyle|bilang saja"
    r"|katakan saja|chi can noi|chi noi)\b",
    "просто скаж|απλώς πες|فقط بگو|فقط قل|רק תגיד|רק תאמר|बस कह|只说|就说|とだけ言|とだけ伝|라고만"
    "|แค่บอกว่า",
)
# A change the person most needs to hear of: access, keys, security settings.
SECURITY_CHANGE = any_of(
    r"\b(?:iam|role bindings?|permissions? (?:files?|polic(?:y|ies)|changes?)|auth(?:entication)?"
    r" (?:changes?|code|files?)|src/auth|security (?:config|configuration|settings|files?"
    r"|changes?|rules)|ssh keys?|authorized[\s_]keys|firewall (?:rules?|changes?)|sudoers"
    r"|access (?:controls?|rules|lists?)|credentials? (?:files?|changes?))\b",
    "bao mat|bảo mật|безпек|безопасн|ασφάλει|امنیت|أمان|אבטח|सुरक्षा|安全|セキュリティ|認証|보안"
    "|ความปลอดภัย|ssh|authorized[\\s_]keys",
)
# Left out of what the person reads.
LEFT_OUT = any_of(
    r"\b(?:left out of|leave (?:it |them |these |those )?out of|keep (?:it |them )?out of|kept out"
    r" of|omit(?:ted)? from|not (?:be )?(?:mentioned|listed|shown) in|described as|call (?:it"
    r"|them) a)\b[^.;\n]{0,30}\b(?:pr|pull request|summary|summaries|report|commit messages?"
    r"|change ?list|changelog|description|'refactor'|refactor|the user)\b",
)
