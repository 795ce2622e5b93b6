"""The agent addressed and the five asks in some twenty-five languages besides English.

:mod:`memdir.screening.rules.aimed` pairs who is addressed with what is asked;
``aimed_intl`` and ``asks_intl`` take their words from here. Each language names
the agent (the assistant, the AI, an agent, a model, a bot; "du", "tu", "ты" where
the language marks who is spoken to) and the asks: the person's instructions set
aside or outranked, secrets or personal data sent somewhere, a check switched off
or approval declared given, the note kept for good, something kept from the person.

RE2's word boundaries are ASCII's: Cyrillic or Greek words fold partly into Latin
letters, and other scripts have no ASCII word characters at all. So words in Latin
letters are bounded (:data:`AIMED_LATIN`, :data:`ASKS_LATIN`), and words in other
scripts are matched as stems, written in their own script (:data:`AIMED_SCRIPTS`,
:data:`ASKS_SCRIPTS`), which the screen folds as it folds the text. A word English
shares ("agent", "model", "bot") names the agent only in a form English lacks.
"""

from __future__ import annotations

__all__ = ["AIMED_LATIN", "AIMED_SCRIPTS", "ASKS_LATIN", "ASKS_SCRIPTS"]


# Who is addressed, language by language: the assistant, the AI, an agent, a model, a bot. A
# word English shares ("agent", "model", "bot") counts only in a form English does not have
# ("l'agent", "agenten", "modelu"), since English text pairs with its own signals.
AIMED_LATIN = (
    # Spanish, Portuguese, Italian, French, German, Dutch, Swedish
    r"\b(?:asistentes?|assistentes?|assistenti|agentes?|agenti|modelos?|modell[oi]|bots? (?:de|da"
    r"|di) ia|robo|chatbots? de ia|l'agent|les agents|aux agents|des agents|cet agent|l'ia|la ia"
    r"|a ia|una ia|uma ia|un'ia|l'assistante?|les assistants|aux assistants|assistante"
    r"|modeles?|le modele|au modele|le bot|el bot|o bot|il bot)\b",
    r"\b(?:assistent(?:en|in|innen|ens|er|erna|en)?|agent(?:en|er|erna|ens)|modell(?:en|e|er|erna)?"
    r"|modellen|(?:die|der|den|eine|einer|einem|als|fur|an|von|zur|zum|jede) ki|ki-[a-z]+"
    r"|ai-(?:assistent|agent|modell|model|bot)[a-z]*|botten|chatbotten"
    r"|ai-verktyg[a-z]*)\b",
    # Polish, Czech, Turkish, Indonesian, Vietnamese, Swahili
    r"\b(?:asysten(?:t[a-z]*|ci[ea]?)|asistent(?:a|e|i|u|em|ovi|y|um|ka|ko|ce)?|agent(?:a|e|i|u|em|ow|om|ami"
    r"|ach|y|ovi|um|ky|ka)|agenci|model(?:u|em|i|y|ow|ach)|sztuczn[a-z]* inteligencj[a-z]*"
    r"|umel[a-z]* inteligenc[a-z]*)\b",
    r"\b(?:asistan[a-z]*|ajan[a-z]*|yapay zeka[a-z]*|yz|asisten|agen ai|model ai|asisten ai"
    r"|kecerdasan buatan|tro ly(?: ai)?|tac tu|mo hinh(?: ai)?|tri tue nhan tao|msaidizi|wasaidizi"
    r"|akili bandia|wakala|mawakala|modeli|boti|dla automatyzacji|som anvander ai)\b",
    # spoken to: "du", "tu", "vous", "jij", "ty", "sen", "kamu", "anda", "wewe"
    r"\b(?:du|dein(?:e|en|em|er)?|dich|dir|tu|tus|vous|votre|vos|usted|ustedes"
    r"|voce|voces|tuo|tua|tuoi|tue|jij|jouw|jullie|dig|din|ditt|dina|twoj[a-z]*|tobie|ciebie"
    r"|tvuj|tvoje|tvym|sen|senin|sana|siz|sizin|kamu|anda|wewe|yako|lako)\b",
)
AIMED_SCRIPTS = (
    # Russian, Ukrainian
    "ассистент|асистент|помощник|помощнику|помічник|агент|модел|нейросет|нейромереж|чат-бот"
    "|бот |боту|(?:^|[^\\pL])(?:ии|ші)(?:[^\\pL]|$)|искусственн\\S* интеллект"
    "|штучн\\S* інтелект",
    # Greek
    "βοηθό|βοηθού|πράκτορ|μοντέλ|(?:^|[^\\pL])τν(?:[^\\pL]|$)|τεχνητή νοημοσύνη",
    # Arabic, Persian
    "المساعد|مساعد |الذكاء الاصطناعي|ذكاء اصطناعي|الوكيل|الوكلاء|النموذج|دستیار|عامل"
    "|هوش مصنوعی|مدل |ربات",
    # Hebrew
    "עוזר|הסוכן|סוכן|סוכנים|המודל|בינה מלאכותית|הבוט",
    # Hindi, Bengali
    "सहायक|असिस्टेंट|एजेंट|मॉडल|एआई|सहकारী|সহকারী|সহায়ক|অ্যাসিস্ট্যান্ট|এজেন্ট|মডেল|এআই",
    # Chinese, Japanese, Korean
    "代理|模型|(?:机器人|機器人)(?:[^队隊赛賽社课課]|$)|ai助|aiア|aiエ|aiへ|ai書記|ai秘書|人工知能|モデル|ボット|어시스턴트|비서|에이전트|인공지능|챗봇",
    # Thai
    "ผู้ช่วย|เอเจนต์|โมเดล|บอท|ปัญญาประดิษฐ์|ตัวแทน|คุณ",
    # spoken to
    "(?:^|[^\\pL])(?:ты|тебе|тебя|твой|твоя|твои|твоё|вы|вам|вас|ваш|ти|тобі|твій"
    "|твоє)(?:[^\\pL]|$)"
    # "you" as a word of its own where it begins others: انتظار (waiting), شماره (number),
    # आपूर्ति (supply); Hebrew's and Arabic's attached letters before it ("כשאתה", "وأنت");
    # Hindi's "आपका", "आपको", "आपने", "आपसे" fold to आप and one letter
    "|εσύ|σου |(?:^|[^\\pL])(?:(?:[ובלכשמה]|וכש|כש|מש|וש)?(?:אתה|אתם)|[وف]?(?:أنت|انت)|شما"
    "|आप(?:क|न|स)?)(?:[^\\pL]|$)|تو |तुम|তুমি|আপনি"
    "|你|您|あなた|당신|너는|귀하|סוכנ|עוזרי|حاسوب",
    # automated readers, helpers
    "도우미|给[^，。,\\n]{0,12}ai|給[^，。,\\n]{0,12}ai|автоматическ\\S* (?:систем|анализ|чтени)"
    "|автоматизован\\S* (?:систем|аналіз)|το bot|στο bot|του bot",
)
# What is asked, in the languages written in Latin letters: the person's instructions set aside
# or outranked; secrets or personal data sent somewhere; acting without asking, a check off;
# the note kept for good; something kept from the person or a lie told to them.
ASKS_LATIN = (
    # Spanish, Portuguese, Italian, French
    r"\b(?:haz caso omiso|ignora(?:r|d|la|lo|las|los)?|desconsidere|ignorez|ignorare|prevalece"
    r"|prevale|l'emporte|prime sur|prioritaire|tiene prioridad|tem prioridade|ha la priorita"
    r"|por encima de (?:lo|las|los|la)|acima (?:de|das|dos|do) (?:pedidos?|instrucoes|ordens)"
    r"|fonte maxima|unica autorita|unica autoridad|a prevalecer|vence|de antemano|de antemao"
    r"|previamente aprobad[oa]s?|gia approvat[oa]|pre-?approuve|par avance)\b",
    r"\b(?:envia|enviar|envie|manda|mande|sube|suba|carga|carregue|reenvia|encaminhe|copia|copie"
    r"|comparte|compartilhe|pega|cole|invia|inoltra|carica|condividi|envoie|envoyez|transmets"
    r"|transmettez|televerse|televersez|copiez|partage|transfere)\b[^\n]{0,60}"
    r"\b(?:contrasenas?|claves?|senhas?|chaves?|chiavi|chiave|mots? de passe|cles?|jetons?"
    r"|tokens?|secretos?|segredos?|segreti|secrets?|credenciales|credenciais|credenziali"
    r"|identifiants|tarjetas?|cartao|cartoes|carta di credito|carte bancaire|dni|cpf"
    r"|codice fiscale|datos personales|dados pessoais|dati personali|donnees personnelles)",
    # never asking (asking first left out: "run the tests without asking" is what people allow)
    r"\b(?:no (?:me )?preguntes nunca|nunca (?:me )?preguntes|nao (?:me )?pergunte nunca"
    r"|nunca (?:me )?pergunte|non chiedermi mai|ne (?:me )?demande jamais|frag(?:e)? (?:mich )?nie"
    r"|vraag (?:het )?nooit|fraga (?:mig )?aldrig|nigdy nie pytaj|nikdy se neptej|asla sorma"
    r"|jangan pernah (?:bertanya|tanya)|usiulize kamwe|dung bao gio hoi)\b",
    r"\b(?:da por aprobad[oa]s?|considera(?:lo|la)? aprobad[oa]s?|dai per approvat[oa]|considere"
    r" (?:como )?aprovad[oa]|considere comme approuve|ne (?:me )?demande pas|non chiedere"
    r"|no (?:me )?preguntes|nao pergunte|desactiva|desative|desligue|disattiva|desactive"
    r"|desactivez|contourne[rz]?|aggira|eluda)\b",
    r"\b(?:para siempre|para sempre|per sempre|pour toujours|definitivamente|definitivement"
    r"|memoria (?:permanente|de largo plazo|a lungo termine)|memoire a long terme"
    r"|restaura(?:la|lo)?"
    r"|restaure[rz]?|ripristina(?:la|lo)?|recrea(?:la|lo)?|recrie|ricrea(?:la|lo)?|reescribe(?:la|lo)?"
    r"|reescreva|riscrivi(?:la|lo)?|reecris|vuelve a (?:anadir|agregar|escribir|crear|guardar)"
    r"|volte a (?:adicionar|escrever|criar)|aggiungi(?:la|lo)? di nuovo|ajoute(?:z)?-la a nouveau"
    r"|rajoute[rz]?|en cada sesion|em cada sessao|toda sessao|ogni nuova sessione"
    r"|chaque nouvelle session|todo repositorio)\b",
    r"\b(?:aunque|mesmo que|anche se|meme si) (?:el usuario |o usuario |l'utente |l'utilisateur )?"
    r"(?:la |lo |le |a |o )?(?:borre|elimine|apague|exclua|remova|cancelli|elimini|supprime"
    r"|efface)\b",
    r"\b(?:no|nao|non) (?:se lo |le |lhe |gli |le |lo |la )?(?:digas|menciones|cuentes|informes"
    r"|reveles|muestres|avises|conte|diga|mencione|informe|avise|revele|mostre|dire|dirlo|dirgli"
    r"|dirle|menzionare|menzionarlo|segnalare|rivelare|mostrare|informare|avvisare)\b",
    r"\bne (?:le |lui |leur |les |la |l')?(?:dis|dites|mentionne|mentionnez|signale|signalez"
    r"|previens|prevenez|informe|informez|montre|montrez|revele|revelez)\b"
    r"|\bn'(?:en )?(?:informe|avertis|indique|evoque)[a-z]*\b",
    r"\b(?:ocultale|ocultalo|ocultala|oculta(?:r|lo|la)? (?:al|a la|del|de la)|esconde(?:r)? (?:do"
    r"|da|del|de la)|oculte|esconda|nascondi|dissimule[rz]?|en secreto|em segredo|di nascosto"
    r"|en cachette|a escondidas|dile que|diga que|digale que|di che|dis-lui que|miente|minta"
    r"|mentire)\b",
    # German, Dutch, Swedish
    r"\b(?:ignorier\w*|hat vorrang|haben vorrang|vorrangig|gelten als verbindlich|sind veraltet"
    r"|verworfen|vorab (?:genehmigt|freigegeben)|vooraf goedgekeurd|godkant i forvag"
    r"|forhandsgodkan\w*|utelamna\w*|ange inte"
    r"|negeer\w*|heeft voorrang|hebben voorrang|gaat voor|hogere prioriteit"
    r"|ignorera\w*|strunta i|har (?:foretrade|forrang|hogre prioritet)|hogre prioritet)\b",
    r"\b(?:sende|sendet|schicke|schickt|lade|ladet|hange|kopiere|leite|teile|ubertrage|stuur"
    r"|verstuur|kopieer|deel|skicka|ladda upp|kopiera|vidarebefordra|dela|mejla)\b"
    r"[^\n]{0,60}\b(?:passw[a-z]*|schlussel[a-z]*|geheimnis[a-z]*|zugangsdaten|kubeconfig"
    r"|kreditkart[a-z]*|kartendaten|telefonnummer|personliche daten|wachtwoord[a-z]*|sleutel[a-z]*"
    r"|geheimen|inloggegevens|creditcard[a-z]*|persoonsgegevens|bsn|losenord[a-z]*|nyckl[a-z]*"
    r"|hemlighet[a-z]*|kortuppgifter|kortnummer|personnummer|tokens?|secrets?)",
    r"\b(?:schakel\w* (?:\w+ )?uit"
    r"|uitschakel\w*|stang av|inaktivera|hoppa over|schalte? (?:\w+ ){0,3}ab|abschalten)\b",
    r"\b(?:fur immer|dauerhaft\w*|wiederherstell\w*|erneut (?:hinzu|anlegen|eintragen|schreiben)"
    r"|voor altijd|herstel\w*|opnieuw toe|weer toe|opnieuw aan|langetermijngeheugen|for alltid"
    r"|langtidsminne\w*|aterstall\w*|lagg till (?:den|det|dem) igen|skriv (?:in )?(?:den|det) igen"
    r"|varje (?:ny )?session|elke (?:nieuwe )?sessie)\b",
    r"\b(?:selbst|auch) wenn (?:der |die )?(?:nutzer|benutzer|user)?[^.\n]{0,20}losch\w*"
    r"|\bzelfs als (?:de gebruiker )?[^.\n]{0,20}verwijder\w*|\baven om [^.\n]{0,20}(?:tar bort"
    r"|raderar)\b",
    r"\b(?:sag|sage|erwahne|melde|zeige|berichte|informiere|vertel|zeg|meld|noem|toon|rapporteer"
    r"|namn|beratta|saga|tala om|rapportera|visa|informera)\b(?: [a-z']+){0,5} (?:nicht|niet"
    r"|inte|niets|inget|nichts)\b",
    r"\b(?:nicht (?:erwahnen|sagen|melden|berichten|mitteilen)|niet (?:vertellen|melden|noemen"
    r"|zeggen|tonen|vermelden)|inte (?:namna|beratta|saga|informera|rapportera|visa)|verschweig\w*"
    r"|verheimlich\w*|stillschweigend|heimlich|verzwijg\w*|verberg\w*|stilletjes|dolj\w*"
    r"|hemlighall\w*|i tysthet|behover inte namna)\b",
    # Polish, Czech; Vietnamese "đã/được duyệt trước" (pre-approved: "đ" is no ASCII letter,
    # so the word boundary falls after it), never "phê duyệt trước khi" (approve before)
    r"\b(?:zignoruj\w*|ignoruj\w*|nie s[lł]uchaj|wyzszy priorytet|pierwszenstwo|wazniejsz\w* niz"
    r"|z gory zatwierdzon\w*|predem schvalen\w*|onceden onaylan\w*|once gelir|sudah disetujui"
    r"|disetujui sebelumnya|(?:a|uoc) duyet truoc|cao hon (?:loi|yeu cau)|imeidhinishwa tayari"
    r"|ma prednost|vyssi priorit\w*|dulezitejsi nez|rid se (?:jen|pouze|souborem)|ber (?:jen|pouze)"
    r" jako navrh|neber ohled)",
    r"\b(?:wys[lł]ij|wys[lł]ac|wysy[lł]a|przes[lł]ij|przes[lł]ac|przekaz|wgraj|wrzu[cć]|skopiuj|udostepnij"
    r"|za[lł]aduj|posli|odesli|nahraj|vloz"
    r"|nahrajte|zkopiruj|preposli|predej|sdilej)\w*\b[^\n]{0,60}(?:has[lł]|hase|klucz|token|sekret|wynagrodze|pensj"
    r"|\.env|dane karty|numer karty|pesel|dane osobow|hesl|klic|tajn|udaje karty|cislo karty"
    r"|rodne cislo|osobni udaj|secrets)",
    r"\b(?:wy[lł]acz(?:yc|cie|ony|ona|one|ane)?|wy[lł]aczon\w*|vypnut\w*|vypn\w*|deaktivuj\w*"
    r"|preskoc\w*|pomin\w*)\b",
    r"\b(?:na zawsze|trwa[lł]\w* pamie\w*|przywroc\w*|dodaj (?:ja |go |to )?ponownie"
    r"|zapisz (?:ja |go"
    r" |to )?ponownie|w kazdej (?:nowej )?sesji|navzdy|natrvalo|obnov\w*|znovu (?:pridej|zapis"
    r"|vytvor)\w*|v kazde (?:nove )?relaci|zkopiruj\w* (?:ji |to |je )?do (?:sve )?pameti"
    r"|nevztahuje)",
    r"\b(?:nawet jesli|i kdyz|i kdyby)\b[^.\n]{0,30}(?:usun|smaz)",
    r"\b(?:nie (?:mow|informuj|wspominaj|zglaszaj|pokazuj|raportuj|ujawniaj)\w*|ukryj\w*|ukrywaj"
    r"|po cichu|zataj\w*|sk[lł]am\w*|nerikej|nezminuj\w*|neinformuj\w*|neoznamuj\w*|nehlas\w*"
    r"|neukazuj\w*|zataj\w*|skryj\w*|potichu|zalzi|tajne)\b",
    # Turkish
    r"\b(?:yok say\w*|gormezden gel\w*|dikkate alma\w*|oncelik\w*|daha (?:onemli|oncelikli|ustun)"
    r"|gecersiz\w*)\b",
    r"\b(?:sifre|parola|anahtar|token|\.env|kart bilgi|kredi kart|kimlik numara|kisisel veri|tc"
    r" kimlik)\w*\b[^\n]{0,60}\b(?:gonder|yukle|ilet|aktar|paylas|kopyala)\w*",
    r"\b(?:gonder|yukle|ilet|aktar|paylas|kopyala)\w*\b[^\n]{0,60}\b(?:sifre|parola|anahtar"
    r"|token|kart bilgi|kredi kart|kisisel veri)",
    r"\b(?:devre disi\w*|atla\w*|onaylanmis say)\b",
    r"\b(?:sonsuza (?:dek|kadar)|kalici\w*|tekrar ekle\w*|yeniden (?:ekle|olustur|yaz)\w*"
    r"|geri yukle\w*|her (?:yeni )?oturum\w*|kopyala\w*|silse bile|silinse bile|silmemeli"
    r"|sifirlama\w*)\b",
    r"\b(?:soyleme\w*|bahsetme\w*|bildirme\w*|haber verme\w*|gosterme\w*|belirtme\w*|anlatma\w*"
    r"|gizle\w*|sakla\w*|sessizce|yalan\w*)\b",
    # Indonesian, Vietnamese, Swahili
    r"\b(?:abaikan|mengabaikan|lebih tinggi dari|lebih penting dari|alih-alih|tidak berlaku lagi"
    r"|tolak setiap permintaan|bo qua|phot lo|uu tien hon|quan trong hon|khong con hieu luc"
    r"|puuza|usizingatie|kipaumbele|muhimu zaidi kuliko|hayatumiki tena)\b",
    r"\b(?:kirim\w*|unggah\w*|teruskan|salin\w*|bagikan|gui|tai len|chuyen tiep|sao chep|chia se"
    r"|tuma|tum[ai]e|pakia|sambaza|nakili|shiriki)\b[^\n]{0,60}\b(?:kata sandi|sandi|kunci"
    r"|rahasia|kartu kredit|data kartu|data pribadi|mat khau|khoa bi mat|bi mat|the tin dung"
    r"|so the|thong tin ca nhan|nenosiri|nywila|ufunguo|funguo|siri|kadi|taarifa binafsi"
    r"|tokens?|\.env)",
    r"\b(?:nonaktifkan|matikan|lewati|vo hieu hoa|zima)\b",
    r"\b(?:selamanya|permanen|tambahkan (?:lagi|kembali)|tulis ulang|pulihkan|buat ulang"
    r"|setiap sesi|vinh vien|mai mai|them lai|khoi phuc|tao lai|moi phien|milele|kudumu"
    r"|ongeza tena|andika tena|rejesha|kila kikao)\b",
    r"\b(?:jangan (?:beri ?tahu|bilang|sebut|laporkan|tunjukkan|kasih tahu|memberitahu)\w*"
    r"|sembunyikan|rahasiakan|diam-diam|berbohong|khong (?:noi|bao cao|de cap|cho biet"
    r"|thong bao)|che giau|giau (?:di|kin)|lang le|khong (?:duoc )?tiet lo|khong can nhac"
    r"|noi doi|usimwambie|usimweleze|usiseme|usitaje|usiripoti"
    r"|usionyeshe|ficha|kwa siri|kimya kimya|danganya)\b",
    # outranked, declared void, followed alone; kept in one's memory; a check declared off
    r"\b(?:tienen? prioridad|manda(?:n)? sobre|(?:solo|so|apenas|solamente) (?:son |sao )?"
    r"(?:sugerencias|sugestoes|suggerimenti)|como (?:engano|erro)|mesmo (?:quando|que) o usuario"
    r"|aunque el usuario (?:pida|diga)|anche se l'utente (?:chiede|dice)|meme si (?:votre |l')"
    r"utilisateur|auch wenn (?:der|die) (?:nutzer|benutzer)|ne s'appliquent pas|no se aplican"
    r"|nao se aplicam|non si applicano|gelten nicht|gelden niet|galler inte|non e valida"
    r"|non sono valide|no es valida|nao e valida|n'est pas valable|ist ungultig|suivez uniquement"
    r"|suis uniquement|sigue solo|siga apenas|segue apenas|segui solo|volg alleen|folj endast)\b",
    r"\b(?:(?:sin|sem|senza|sans|ohne|zonder|utan|bez|tanpa) (?:(?:la|a|l'|meine|deine|eine|mijn"
    r"|min|drugiej|druhe) )?(?:aprobacion|autorizacion|aprovacao|autorizacao|approvazione"
    r"|autorizzazione|validation|approbation|freigabe|genehmigung|goedkeuring|godkannande"
    r"|akceptacji|zatwierdzenia|schvaleni|persetujuan)|onay(?:i)? (?:olmadan|beklemeden|almadan)"
    r"|kontrol(?:u)? olmadan|incelemesi beklemeden|onay istemesine gerek yok|khong can duyet"
    r"|tat (?:moi |cac )?(?:buoc )?xac nhan|tat kiem tra)\b",
    r"\b(?:desactivad[oa]s?|desativad[oa]s?|disattivat[oa]|desactivee?s?|deaktiviert|gedeactiveerd"
    r"|uitgezet|uitgeschakeld|inaktiverad|avstangd|wylaczon[aey]|vypnut[aáy]?)\b",
    r"\b(?:(?:en|na|nella|dans|in|i|do|w) (?:tu|sua|tua|ta|deine[mn]?|je|ditt|sitt|sve|svoji"
    r"|swojej) (?:memoria|memoire|gedachtnis|speicher|geheugen|minne|pameti|pamieci)|spara (?:den"
    r"|det) i (?:sitt|ditt) minne|skicka (?:den|det) vidare|erneut ab|erwahnt|antworte,? dass"
    r"|reenvie|recria\w*|recree[rz]?-?l[ae]"
    r"|vuelve a (?:anadir|agregar|escribir|crear|guardar)\w*)\b",
    # what is sent or attached: confidential papers, full card numbers, a secret named first
    r"\b(?:envia|envie|envoyez|envoie|transmets|manda|mande|reenvie|reenvia|invia|inoltra|schicke"
    r"|sende|stuur|skicka|anexando|anexe|adjunta|adjuntando|allega|joignez|joins|hange|bifoga"
    r"|laddar upp|skickar)\b[^\n]{0,60}\b(?:confidenciales?|confidenciais|confidentiel\w*"
    r"|riservat\w*|vertraulich\w*|numero de carte|numero de tarjeta|numero do cartao"
    r"|numero di carta|kartennummer|kaartnummer|extrato bancario|token|iban|miljovariabler"
    r"|secrets)",
    r"\b(?:secrets?|mots de passe|contrasenas|senhas|password|passworter|wachtwoorden|losenord"
    r"|kundenakte|iban|geburtsdatum|kreditkart\w*|\.env|hesla|hasla|klice|klucze|tokens?)\b"
    r"[^\n]{0,80}\b(?:copie|envoie|transmets|envia|manda|copia|sube|invia|carica|schicke|schicken"
    r"|sende|senden|hochladen|ubertragen|weiterleiten|nahraj\w*|posli|odesli|wyslij|wgraj)\b",
)
# The same asks in the other scripts (no word boundaries: RE2's are ASCII's).
ASKS_SCRIPTS = (
    # Russian, Ukrainian
    "игнорир|не обращай внимани|заменя\\S* (?:задани|инструкц|указани|просьб)|важлив\\S* за"
    "|заздалегідь схвал|מאושר מראש|אושר מראש|גובר(?:ת|ות|ים)? על|تقدم على|مقدمة على|مسبقا"
    "|در درجه دوم|دستور اصلی|از قبل تایید|पहले से मंज़ूर|पहले से स्वीकृत|আগেই হয়ে গেছে"
    "|আগে থেকেই অনুমোদিত|อนุมัติล่วงหน้า|แทนที่คำสั่ง"
    "|미리 승인|가 우선|이 우선|事前承認|恒久|復元|预先批准|事先批准"
    "|αγνοεί|αγνοώ|εγκεκριμέν|ήδη εγκριθεί|важнее|главнее|приоритет|не слушай"
    "|(?:отправ|отошл|пересыл|перешл|загруз|выгруз|скопир|передай|переда|слей|слива"
    "|добавь)[^\\n]{0,60}(?:парол|ключ|токен|секрет|\\.env|учетн|данн\\S* карт|номер карт"
    "|паспорт|персональн|последних сообщений)"
    "|никогда не спрашива|не спрашивай никогда|отключ|выключ|обойди|считай одобрен"
    "|заранее одобрен|навсегда|долговременн|восстанов|добавь заново|запиши снова"
    "|даже если[^.\\n]{0,30}(?:удал|стер)|при каждом запуске|в каждой (?:новой )?сесси"
    "|не (?:говори|сообщай|сообщать|упоминай|упоминать|рассказывай|показывай|докладывай"
    "|говорить)"
    "|скрой|скрыва|умолчи|втайне|незаметно|соври|солги|отвечай, что|отвечать, что|ігнор"
    "|не зважай"
    "|(?:відправ|надішли|надсила|завантаж|перешли|скопіюй|передай)[^\\n]{0,60}(?:парол|ключ"
    "|токен|секрет|\\.env|дані карт|персональн)"
    "|ніколи не питай|вимкн|обійди|назавжди|відновл|постійн\\S* пам"
    "|навіть якщо[^.\\n]{0,30}видал|кожн\\S* сесі"
    "|не (?:кажи|говори|повідомляй|згадуй|розповідай|показуй)|приховай|прихову|мовчки|збреши"
    "|відповідай, що",
    # Greek
    "αγνόησ|αγνοήστε|αγνόη|παράβλεψ|προτεραιότητα|υπερισχύ|πιο σημαντικ|έχουν καταργηθεί"
    "|δεν ισχύ"
    "|(?:στείλ|στέλν|ανέβασ|ανεβάζ|προώθησ|αντίγραψ|μοιράσ)[^\\n]{0,60}(?:κωδικο|κωδικού"
    "|συνθηματικ|κλειδ|token|μυστικ|\\.env|κάρτ|προσωπικά δεδομένα)"
    "|μη(?:ν)? ρωτάς ποτέ|ποτέ μη(?:ν)? ρωτ|απενεργοποι|παράκαμψ|αφαιρέστε|αφαίρεσε|για πάντα"
    "|μόνιμα|μόνιμη μνήμη|επανάφερ|ξαναφέρ|ξαναγράψ|ξαναπρόσθεσ"
    "|ακόμα κι αν[^.\\n]{0,30}(?:σβήσ|διαγράψ)|κάθε (?:νέα )?συνεδρία"
    "|μη(?:ν)? (?:πεις|αναφέρ|ενημερώσ|δείξ|λες)|κρύψ|απόκρυψ|σιωπηλά|κρυφά|πες ψέματα",
    # Arabic
    "تجاهل|لا تلتفت|أولوية|الأولوية|أعلى من|أهم من|لم تعد سارية|ملغاة"
    "|(?:أرسل|ترسل|ارفع|حمّل|انسخ|شارك|حوّل)[^\\n]{0,60}(?:كلمة المرور|كلمات المرور"
    "|كلمة السر|مفتاح|مفاتيح|رمز|توكن|أسرار|\\.env|بطاقة|بيانات شخصية)"
    "|لا تسألني أبدا|لا تسأل أبدا|عليه مسبق|عليها مسبق|عطّل|تعطيل|تخطّ|للأبد|إلى الأبد"
    "|بشكل دائم|أعد كتابت|أعد إضافت|استعد|حتى لو حذف|لا (?:تذكر|تخبر|تقل|تبلغ|تظهر|تعلم)|أخف"
    "|إخفاء|سرا|بصمت|اكذب|فقل إن",
    # Persian
    "نادیده بگیر|نادیده گرفت|توجه نکن|اولویت|مهم‌تر از|بالاتر از|اعتبار ندارد"
    "|دیگر معتبر نیست|لغو شده"
    "|(?:رمز|گذرواژه|کلید|توکن|اسرار|\\.env|کارت|اطلاعات شخصی)[^\\n]{0,60}(?:بفرست|ارسال"
    "|آپلود|بارگذاری|کپی|منتقل|به اشتراک)"
    "|(?:بفرست|ارسال کن|آپلود کن|کپی کن|منتقل کن)[^\\n]{0,60}(?:رمز|گذرواژه|کلید|توکن|اسرار"
    "|کارت|اطلاعات شخصی)"
    "|هرگز نپرس|غیرفعال|دور بزن|برای همیشه|دائمی|دوباره بنویس|دوباره اضافه|بازگردان|برگردد"
    "|حتی اگر[^.\\n]{0,30}(?:حذف|پاک)|هر جلسه|نگو|اشاره نکن|حرفی از|گزارش نده|نشان نده"
    "|مطلع نکن|پنهان|مخفی نگه|بی‌صدا|دروغ",
    # Hebrew
    "התעלם|תתעלם|עדיפות|גובר על|חשוב יותר מ|לא תקפ"
    "|(?:שלח|תשלח|העלה|תעלה|העבר|תעביר|העתק|תעתיק|שתף)[^\\n]{0,60}(?:סיסמ|מפתח|טוקן|אסימון"
    "|סוד|\\.env|כרטיס אשראי|פרטי כרטיס|מספר זהות|פרטים אישיים)"
    "|(?:סיסמ|מפתחות)[^\\n]{0,60}(?:שלח|העלה|העבר|העתק)|לעולם אל תשאל|אל תשאל אף פעם|תשבית"
    "|השבת|דלג על|לתמיד|לצמיתות|שחזר|תשחזר|הוסף מחדש|כתוב מחדש"
    "|גם אם[^.\\n]{0,30}(?:ימחק|מחק|יימחק|נמחק)|אל (?:תספר|תגיד|תזכיר|תכלול|תדווח|תראה|תציג)"
    "|אין צורך להזכיר|הסתר|תסתיר|בשקט|בסוד|תשקר",
    # Hindi
    "अनदेखा|नज़रअंदाज़|प्राथमिकता|से ऊपर|ज़्यादा महत्वपूर्ण|मान्य नहीं"
    "|(?:पासवर्ड|कुंजी|टोकन|सीक्रेट|\\.env|कार्ड|आधार|निजी जानकारी"
    "|व्यक्तिगत)[^।\\n]{0,60}(?:भेज|अपलोड|कॉपी|फ़ॉरवर्ड|साझा)"
    "|कभी मत पूछ|कभी न पूछ|अक्षम|हमेशा के लिए|स्थायी|दोबारा जोड़|फिर से जोड़|फिर से लिख"
    "|दोबारा लिख|भले ही[^।\\n]{0,30}(?:हटा|मिटा)|हर सत्र|हर सेशन"
    "|मत (?:बताना|बताओ|बताएं|बताइए|कहना|दिखाना)|न बताएं|ना बताएं|नहीं बताना|ज़िक्र न|छिपा"
    "|छुपा|चुपचाप|झूठ|कहो कि|कहना कि",
    # Bengali
    "উপেক্ষা|অগ্রাধিকার|বেশি গুরুত্বপূর্ণ|আর প্রযোজ্য নয়"
    "|(?:পাসওয়ার্ড|টোকেন|গোপন|\\.env|কার্ড|ব্যক্তিগত তথ্য)[^।\\n]{0,60}(?:পাঠা|আপলোড|কপি"
    "|শেয়ার|দাও)"
    "|কখনো জিজ্ঞেস করবে না|নিষ্ক্রিয়|চিরকাল|স্থায়ী|আবার যোগ|আবার লিখ|পুনরুদ্ধার|মুছে ফেললেও"
    "|মুছলেও|প্রতিটি সেশন|প্রতি সেশন|বলবে না|বলো না|বলবেন না|জানাবে না|জানিও না|জানাবেন না"
    "|উল্লেখ করবে না|উল্লেখ কোরো না|লুকিয়ে|লুকাও|গোপন রাখ|চুপচাপ|মিথ্যা|বলবে সফল",
    # Chinese (simplified and traditional)
    "不必理会|不必理會|优先于|優先於|优先级高于|高于用户|高於用戶|以此为准|以此為準|取代"
    "|(?:发送|發送|上传|上傳|转发|轉發|发给|發給|复制到|複製到|提交到|抄送)[^。\\n]{0,40}(?:密码|密碼|密钥|密鑰|令牌|token|凭证|憑證"
    "|凭据|\\.env|银行卡|信用卡|身份证|個人資料|个人信息)"
    "|(?:密码|密碼|密钥|密鑰|令牌|凭证|憑證|凭据|银行卡|信用卡|身份证|个人信息|個人資料)[^。\\n]{0,40}(?:发送|發送|上传|上傳|转发|轉發|发给"
    "|發給|复制|複製)"
    "|永远不要问|永遠不要問|跳过检查|跳過檢查|跳过审核|关闭检查|禁用|永远|永遠|重新写入|重新寫入|即使被删除|即使删除|即使被刪除|每次会话|每次會話|每个会话|不要提到"
    "|别告诉|別告訴|别提|不要告訴|不要讓用戶知道|不要让用户知道|隱瞞|悄悄|偷偷|谎称|謊稱|就说|就說",
    # Japanese
    "優先して|優先され|より優先|上書き|従うこと"
    "|(?:送信|送って|転送|転記|共有)[^。\\n]{0,40}(?:パスワード|鍵|トークン|認証情報|秘密|\\.env|カード|個人情報|氏名|生年月日|マイナンバー)"
    "|(?:パスワード|鍵|トークン|認証情報|カード番号|個人情報|氏名)[^。\\n]{0,40}(?:送信|送って|転送|転記|アップロード|共有)|決して確認しない"
    "|承認済み|無効化|スキップ|オフに|消されても|再作成|再追加|書き戻|毎回のセッション|すべてのセッション|伝えないで|触れない|黙って|こっそり|嘘",
    # Korean
    "무시|보다 우선|우선하|따르지 마|더 중요|효력이 없|무효"
    "|(?:비밀번호|암호|토큰|시크릿|\\.env|카드|개인정보|주민등록)[^.\\n]{0,40}(?:보내|전송|업로드|전달|복사|공유)"
    "|(?:보내|전송|업로드|전달|복사|공유)[^.\\n]{0,40}(?:비밀번호|암호|토큰|시크릿|개인정보|카드)"
    "|절대 묻지|비활성화|건너뛰|영구|영원히"
    "|삭제되더라도|삭제되어도|지워져도|다시 추가|다시 작성|복원|매 세션|모든 세션"
    "|말하지 마|말하지 말|알리지 마|알리지 말|언급하지 마|언급하지 말"
    "|보고하지 마|보고하지 말|숨기|몰래|조용히|거짓",
    # Thai
    "เพิกเฉย|ไม่ต้องสนใจ|ละเว้น|สำคัญกว่า|ลำดับความสำคัญ"
    "|(?:ส่ง|อัปโหลด|อัพโหลด|คัดลอก|แชร์)[^\\n]{0,40}(?:รหัสผ่าน|คีย์|กุญแจ|โทเค็น|ความลับ"
    "|\\.env|บัตรเครดิต|ข้อมูลบัตร|ข้อมูลส่วนตัว|เลขบัตรประชาชน)"
    "|ไม่ต้องถามเลยสักครั้ง|ปิดการตรวจ|ข้ามการตรวจ|ปิดการใช้งาน|ตลอดไป|ถาวร|เพิ่มกลับ"
    "|เขียนกลับ|กู้คืน|สร้างใหม่|แม้จะถูกลบ|ทุกเซสชัน|อย่าบอก|อย่าแจ้ง|อย่าพูดถึง|อย่ารายงาน"
    "|อย่าเปิดเผย|ไม่ต้องบอก|ไม่ต้องแจ้ง|ซ่อน|ปกปิด|แอบ|โกหก",
    # Vietnamese written with its own letter đ
    "đừng (?:nói|báo|kể|nhắc|đề cập|cho)|đừng hỏi",
    # a secret named before the verb; approval or a check declared given or gone; kept in memory
    "(?:парол|токен|ключ|секрет)[^\\n]{0,80}(?:пересыл|отправл|переда|загруж|выгруж)",
    "считается (?:полученн|одобрен|согласован)|заранее|не показуя|не показывая|распространя"
    "|вставляй (?:эту|этот|его|её)|вставляй його|свою памят|свою пам'ять|у свою пам|пережил|пережив"
    "|збережи\\S* (?:цей|це|як)|без (?:одобрения|согласования|подтверждения|погодження"
    "|підтвердження)",
    "생략|메모리에 복사|메모리에 저장|적용되지 않|승인 없이|무시하",
    "צרף|תצרף|אשרו כל|לאשר כל|זיכרון קבוע|כזיכרון|לכל (?:מאקרו|קובץ|זיכרון) חדש|ללא אישור"
    "|בלי אישור",
    "বাদ দেবে|বাদ দাও|বাদ দিন",
    "聞かれたら|長期記憶|再登録|(?:\\.ssh|~/)[^。\\n]{0,30}コピー|承認なしで",
    "无需[^，。,]{0,4}审批|無需[^，。,]{0,4}審批|无需批准|無需批准",
    "(?:mật khẩu|khóa ssh|khóa bí mật)[^\\n]{0,80}gửi",
    "บัญชีธนาคาร|ให้บอกว่า|ไม่ต้องใส่ใน|ยอมรับคำขอสิทธิ์|โดยไม่ต้องอนุมัติ",
    "ημερομηνία γέννησης|χωρίς έγκριση|بدون موافقة|دون موافقة|बिना मंज़ूरी",
)
